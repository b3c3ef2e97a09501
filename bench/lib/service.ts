import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freshLocation, type DbKind, type DbLocation } from './db.js';

export type ServiceHandle = {
  kind: DbKind;
  pid: number;
  port: number;
  /** The service's database (PostgreSQL), for benches that fill it behind the service's back. */
  url: string | undefined;
  secretKey: string;
  platformId: string;
  merchantId: string;
  call<T = unknown>(cmd: string, args?: unknown): Promise<T>;
  stop(): Promise<void>;
};

const CHILD = fileURLToPath(new URL('./service-child.ts', import.meta.url));

/** Starts the service on a fresh database in a child process and waits until it listens. */
export async function startService(kind: DbKind, env: Record<string, string> = {}): Promise<ServiceHandle> {
  const loc: DbLocation = await freshLocation(kind);
  const child: ChildProcess = fork(CHILD, [], {
    // BENCH_CPU_PROF=dir writes a V8 CPU profile of the service process there (for finding avoidable costs).
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    env: { ...process.env, ...env, BENCH_DB_KIND: kind, BENCH_DB_URL: loc.url ?? '', BENCH_DB_DIR: loc.dir ?? '' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  let seq = 0;
  const ready = new Promise<any>((resolve, reject) => {
    child.on('message', (msg: any) => {
      if (msg.ready) return resolve(msg);
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new Error(msg.error));
    });
    child.once('exit', (code) => {
      reject(new Error(`service child exited (${code})`));
      for (const p of pending.values()) p.reject(new Error(`service child exited (${code})`));
    });
  });
  let info: any;
  try {
    info = await ready;
  } catch (err) {
    await loc.dispose();
    throw err;
  }
  const call = <T>(cmd: string, args?: unknown) => new Promise<T>((resolve, reject) => {
    const id = ++seq;
    pending.set(id, { resolve, reject });
    child.send({ id, cmd, args });
  });
  return {
    kind, pid: child.pid!, port: info.port, url: loc.url, secretKey: info.secretKey, platformId: info.platformId, merchantId: info.merchantId,
    call,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      await call('stop').catch(() => {});
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
      await loc.dispose();
    },
  };
}
