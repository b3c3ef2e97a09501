import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export type Receiver = { url: string; call<T>(cmd: string): Promise<T>; stop(): Promise<void> };

/** Starts the webhook receiver child; `keep` records every arrival (for latency), otherwise it only counts. */
export async function startReceiver(keep: boolean): Promise<Receiver> {
  const child = fork(fileURLToPath(new URL('./receiver-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'], env: { ...process.env, RECEIVER_KEEP: keep ? '1' : '0' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (v: any) => void>();
  let seq = 0;
  const port = await new Promise<number>((resolve, reject) => {
    child.on('message', (m: any) => {
      if (m.ready) return resolve(m.port);
      pending.get(m.id)?.(m.result);
      pending.delete(m.id);
    });
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
  });
  const call = <T>(cmd: string) => new Promise<T>((resolve) => {
    const id = ++seq;
    pending.set(id, resolve);
    child.send({ id, cmd });
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    call,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      await call('stop');
      await exited;
    },
  };
}
