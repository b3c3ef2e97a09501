import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Starts the synthetic chain (fake-rpc-child.ts) in its own process; `blocks` × `perBlock` OrderPaid logs. */
export async function startFakeRpc(o: { blocks: number; perBlock: number; router: string; chainId: number }) {
  const child = fork(fileURLToPath(new URL('./fake-rpc-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, FAKE_BLOCKS: String(o.blocks), FAKE_PER_BLOCK: String(o.perBlock), FAKE_ROUTER: o.router, FAKE_CHAIN_ID: String(o.chainId) },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: any) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`fake rpc exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.disconnect();
      await exited;
    },
  };
}
