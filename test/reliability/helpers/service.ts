import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort, ROOT } from '../../helpers/service-process.js';

export { freePort };

export type ServiceProcess = {
  url: string;
  port: number;
  pid: number;
  logs: string[];
  exited: Promise<number | null>;
  /** SIGKILL: no shutdown hook runs, nothing is flushed. */
  kill(): Promise<void>;
  /** SIGTERM and wait (graceful). */
  stop(): Promise<void>;
  /** Resident set size in kB, from /proc. */
  rssKb(): number;
};

/**
 * The real service as a child process: `node --import tsx <entry> --role <role>` with only the given
 * environment (plus PATH/HOME), ready once /health answers 200.
 */
export async function startService(opts: { env: Record<string, string>; port: number; entry?: string; role?: string; readyTimeoutMs?: number; ready?: (pid: number) => Promise<boolean> }): Promise<ServiceProcess> {
  const entry = opts.entry ?? 'src/main.ts';
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: String(opts.port), ...opts.env };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', entry, '--role', opts.role ?? 'all'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) logs.push(line);
      if (logs.length > 2000) logs.splice(0, logs.length - 2000);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${opts.port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (gone) throw new Error(`service exited during start:\n${logs.slice(-30).join('\n')}`);
    // A worker-role process serves no HTTP: the caller says what "ready" means (e.g. it holds a lease).
    const ok = opts.ready
      ? await opts.ready(child.pid!).catch(() => false)
      : await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service not ready on ${url}:\n${logs.slice(-30).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    port: opts.port,
    pid: child.pid!,
    logs,
    exited,
    async kill() {
      if (!gone) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (gone) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
    rssKb() {
      try {
        const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        return m ? Number(m[1]) : 0;
      } catch {
        return 0;
      }
    },
  };
}

export type HttpRes = { status: number; body: any; text: string; headers: Headers };

/** A small HTTP client for a service process. */
export function client(base: string) {
  return async function request(method: string, p: string, o: { key?: string; cookie?: string; body?: unknown; idem?: string; headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<HttpRes> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.cookie) headers.cookie = o.cookie;
    if (o.idem) headers['idempotency-key'] = o.idem;
    const res = await fetch(`${base}${p}`, { method, headers, body: o.body !== undefined ? JSON.stringify(o.body) : undefined, signal: AbortSignal.timeout(o.timeoutMs ?? 30_000) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body, text, headers: res.headers };
  };
}

export const cookieOf = (headers: Headers) => headers.getSetCookie().map((c) => c.split(';')[0]).filter((c) => !c!.endsWith('=')).join('; ');
