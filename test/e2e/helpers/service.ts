import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Address, Hex } from 'viem';
import { freePort } from './ports.js';

export type DevnetJson = {
  chain_id: number;
  rpc_url: string;
  usdc: Address;
  router: Address;
  service_treasury: Address;
  admin_token: string;
  accounts: { address: Address; private_key: Hex }[];
};

export type RunningService = { baseUrl: string; dataDir: string; devnet: DevnetJson; logFile: string; stop(): Promise<void> };

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Variables that would switch the service out of devnet mode or point it elsewhere: never inherited. */
const CONFIG_VARS = /^(RPC_URL_|ROUTER_ADDRESS_|USDC_ADDRESS_|CONFIRMATIONS_|DATABASE_URL$|SIGNER_PRIVATE_KEY$|OPERATOR_PRIVATE_KEY$|SERVICE_FEE_BPS$|SERVICE_TREASURY$|ADMIN_TOKEN$|BETTER_AUTH_SECRET$|PUBLIC_BASE_URL$|DASHBOARD_URL$|PORT$|DATA_DIR$|DEVNET_RPC_PORT$|RESERVE_HOLD_DAYS$|NODE_OPTIONS$)/;

/**
 * Starts the service the way `npm start` does (`node --import tsx src/main.ts`) with a temporary DATA_DIR
 * and free ports, and no other configuration: devnet mode. Waits for /health and DATA_DIR/devnet.json.
 */
export async function startService(opts: { timeoutMs?: number } = {}): Promise<RunningService> {
  if (!existsSync(path.join(ROOT, 'web/dist/index.html'))) throw new Error('web/dist is missing: run `npm run build:web` first (npm run test:e2e does).');
  const [port, rpcPort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'trisettle-e2e-'));
  const logDir = path.join(ROOT, 'test-results');
  mkdirSync(logDir, { recursive: true });
  const logFile = path.join(logDir, 'e2e-service.log');
  const log = createWriteStream(logFile, { flags: 'w' });
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!CONFIG_VARS.test(k)) env[k] = v;
  Object.assign(env, { PORT: String(port), DEVNET_RPC_PORT: String(rpcPort), DATA_DIR: dataDir, LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'info' });

  // Its own process group, so anvil (its child) goes too if it has to be killed.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? -1;
  });

  const baseUrl = `http://localhost:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  const devnetFile = path.join(dataDir, 'devnet.json');
  for (;;) {
    if (exited !== null) {
      log.end();
      throw new Error(`the service exited with code ${exited} during start-up; see ${logFile}:\n${tail(logFile)}`);
    }
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`the service did not become healthy in time; see ${logFile}:\n${tail(logFile)}`);
    }
    if (existsSync(devnetFile) && (await healthy(baseUrl))) break;
    await new Promise((r) => setTimeout(r, 300));
  }
  const devnet = JSON.parse(readFileSync(devnetFile, 'utf8')) as DevnetJson;
  return {
    baseUrl,
    dataDir,
    devnet,
    logFile,
    async stop() {
      await stopChild(child);
      log.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function healthy(baseUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000));
  if ((await Promise.race([done, timer])) === 'timeout') {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
    await done;
  }
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
