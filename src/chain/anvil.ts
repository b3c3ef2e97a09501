/**
 * Runs anvil (from the npm @foundry-rs/anvil package, never from PATH) as a child process.
 *
 * Always pure interval mining (`--block-time`): anvil 1.7.1 in automine or --mixed-mining can hang when
 * several transactions arrive at once. Tests move time with `anvil_mine` / `evm_increaseTime` instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type AnvilOptions = {
  /** 0 = let the OS pick a free port (read back from anvil's output). */
  port: number;
  host?: string;
  chainId?: number;
  blockTime?: number;
  /** Load from and dump to this file (`--state`), also every `stateInterval` seconds. */
  statePath?: string;
  stateInterval?: number;
  /** Number of funded dev accounts (anvil's default mnemonic). */
  accounts?: number;
  /** Called with each output line (for logs); the last lines are also kept for error messages. */
  onLog?: (line: string) => void;
  startTimeoutMs?: number;
};

export type AnvilHandle = { rpcUrl: string; port: number; pid: number; stop(): Promise<void> };

const require = createRequire(import.meta.url);

/** Path of the native anvil binary shipped in the platform package of @foundry-rs/anvil. */
export function anvilBinaryPath(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  const candidates: string[] = [];
  try {
    candidates.push(require.resolve(`@foundry-rs/anvil-${process.platform}-${arch}/bin/${exe}`));
  } catch {
    // fall through to the wrapper package's layout
  }
  try {
    const wrapperDir = path.dirname(require.resolve('@foundry-rs/anvil/package.json'));
    candidates.push(path.join(wrapperDir, '..', 'dist', exe));
  } catch {
    // not installed
  }
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error('anvil binary not found: is @foundry-rs/anvil installed (npm ci)?');
  return found;
}

async function rpcChainId(url: string): Promise<number | null> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await res.json()) as { result?: string };
    return body.result ? Number(body.result) : null;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // SIGTERM (not SIGKILL) lets anvil dump its --state file on the way out.
  process.once('exit', () => {
    for (const child of live) child.kill('SIGTERM');
  });
}

export async function startAnvil(opts: AnvilOptions): Promise<AnvilHandle> {
  const host = opts.host ?? '127.0.0.1';
  const args = [
    '--host', host,
    '--port', String(opts.port),
    '--chain-id', String(opts.chainId ?? 84532),
    '--block-time', String(opts.blockTime ?? 1),
    '--accounts', String(opts.accounts ?? 10),
  ];
  if (opts.statePath) args.push('--state', opts.statePath, '--state-interval', String(opts.stateInterval ?? 5));

  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  installExitHook();
  const tail: string[] = [];
  let port = 0; // known once *this* child says it is listening, not just because something answers
  let exited: string | null = null;
  const onLine = (line: string) => {
    const m = /Listening on \S*:(\d+)/.exec(line);
    if (m?.[1]) port = Number(m[1]);
    tail.push(line);
    if (tail.length > 40) tail.shift();
    opts.onLog?.(line);
  };
  // Both pipes must be drained: a full pipe buffer would block anvil.
  for (const stream of [child.stdout, child.stderr]) {
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buf += chunk;
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) onLine(l);
    });
  }
  const exitPromise = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = `anvil exited (code ${code}, signal ${signal})`;
      live.delete(child);
      resolve();
    });
  });

  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exitPromise;
    clearTimeout(killTimer);
  };

  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  while (Date.now() < deadline) {
    if (exited) break;
    if (port !== 0 && (await rpcChainId(`http://${host}:${port}`)) !== null) {
      return { rpcUrl: `http://${host}:${port}`, port, pid: child.pid ?? -1, stop };
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`anvil did not start on ${host}:${opts.port}: ${exited ?? 'timed out'}\n${tail.join('\n')}`);
}
