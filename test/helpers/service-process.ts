/**
 * The real service as `npm start` runs it, for the SDK, example and browser tests: `node --import tsx
 * src/main.ts` with no chain configuration (devnet: its own anvil at 1-second blocks, Circle's USDC and the
 * router deployed), a temporary DATA_DIR and free ports. With TEST_DB=postgres it gets a fresh PostgreSQL
 * database (DATABASE_URL); otherwise its embedded PGlite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { makePublicClient, makeWalletClient } from '../../src/chain/clients.js';
import type { DevnetInfo } from '../../src/chain/devnet.js';
import type { DB } from '../../src/db/schema.js';
import { freshDatabase, TEST_DB } from './harness.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** What the service writes to DATA_DIR/devnet.json. */
export type DevnetJson = DevnetInfo;

export type Service = {
  baseUrl: string; dataDir: string; devnetFile: string; devnet: DevnetJson; logFile: string;
  /** The service's PostgreSQL database (TEST_DB=postgres), to check where the data went; null on PGlite. */
  database: Kysely<DB> | null;
  /** Mints `amount` USDC base units to `to` with the devnet's minter (Circle's USDC) and waits for the block. */
  fundUsdc(to: Address, amount: bigint): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Mints devnet USDC to `to`: the deployer in DATA_DIR/devnet-secrets.json is the token's minter. For a fresh
 * zero-ETH buyer (gasless checkout), nothing else about the account changes.
 */
export async function fundUsdc(dataDir: string, devnet: DevnetJson, to: Address, amount: bigint): Promise<void> {
  const secrets = JSON.parse(readFileSync(path.join(dataDir, 'devnet-secrets.json'), 'utf8')) as { deployer_private_key: Hex };
  const opts = { rpcUrl: devnet.rpc_url, chainId: devnet.chain_id, devnet: true };
  const wallet = makeWalletClient({ ...opts, account: privateKeyToAccount(secrets.deployer_private_key) });
  const hash = await wallet.writeContract({ address: devnet.usdc, abi: circleUsdcAbi, functionName: 'mint', args: [to, amount] });
  const receipt = await makePublicClient(opts).waitForTransactionReceipt({ hash, timeout: 60_000 });
  if (receipt.status !== 'success') throw new Error(`devnet USDC mint reverted (tx ${hash})`);
}

/** Variables that would take the service out of devnet mode or elsewhere: never inherited. */
const CONFIG_VARS = /^(RPC_URL_|ROUTER_ADDRESS_|SUBSCRIPTION_MANAGER_ADDRESS_|USDC_ADDRESS_|CONFIRMATIONS_|FINALITY_|DATABASE_URL$|SIGNER_PRIVATE_KEY$|OPERATOR_PRIVATE_KEY$|RELAYER_PRIVATE_KEY$|GASLESS_ENABLED$|GASLESS_DAILY_CAP$|RPC_BATCH_SIZE$|SERVICE_FEE_BPS$|SERVICE_TREASURY$|ADMIN_TOKEN$|BETTER_AUTH_SECRET$|PUBLIC_BASE_URL$|DASHBOARD_URL$|PORT$|HOST$|DATA_DIR$|DEVNET_RPC_PORT$|RESERVE_HOLD_DAYS$|TRUST_PROXY_HOPS$|NODE_OPTIONS$|LOG_LEVEL$)/;

/** A TCP port that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/** Environment for a child process: ours minus the service's configuration and the TRISETTLE_ variables a shell may export. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!CONFIG_VARS.test(k) && !k.startsWith('TRISETTLE_')) env[k] = v;
  return { ...env, ...extra };
}

/**
 * Starts it and waits for /health and DATA_DIR/devnet.json. `name` names the log file
 * (test-results/<name>-<db>-service.log), kept after the run.
 */
export async function startService(name: string, opts: { timeoutMs?: number; logLevel?: string; env?: Record<string, string> } = {}): Promise<Service> {
  const [port, rpcPort] = [await freePort(), await freePort()];
  const dataDir = mkdtempSync(path.join(tmpdir(), `trisettle-${name}-`));
  mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
  const logFile = path.join(ROOT, 'test-results', `${name}-${TEST_DB}-service.log`);
  const log = createWriteStream(logFile, { flags: 'w' });
  // Only the database's URL is used: the service connects and migrates it itself; close() drops it.
  const database = TEST_DB === 'postgres' ? await freshDatabase() : null;
  const env = cleanEnv({
    PORT: String(port), DEVNET_RPC_PORT: String(rpcPort), DATA_DIR: dataDir, LOG_LEVEL: opts.logLevel ?? 'warn',
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
    ...opts.env,
  });
  // Its own process group, so that anvil (its child) can be taken down with it if it must be killed.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? -1;
  });
  const cleanup = async () => {
    await stopChild(child);
    log.end();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.close().catch(() => {});
  };

  const baseUrl = `http://localhost:${port}`;
  const devnetFile = path.join(dataDir, 'devnet.json');
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
  for (;;) {
    if (exited !== null || Date.now() > deadline) {
      const why = exited !== null ? `exited with code ${exited}` : 'did not become healthy in time';
      await cleanup();
      throw new Error(`the service ${why}; log ${logFile}:\n${tail(logFile)}`);
    }
    if (existsSync(devnetFile) && (await healthy(baseUrl))) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const devnet = JSON.parse(readFileSync(devnetFile, 'utf8')) as DevnetJson;
  return { baseUrl, dataDir, devnetFile, devnet, logFile, database: database?.db ?? null, fundUsdc: (to, amount) => fundUsdc(dataDir, devnet, to, amount), stop: cleanup };
}

async function healthy(baseUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(2_000) })).ok;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000).unref());
  if ((await Promise.race([done, timeout])) === 'timeout') {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
    await done;
  }
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** An account with a platform on the running service; returns its secret key (what the dashboard shows once). */
export async function platformKey(baseUrl: string, wallet: Address): Promise<string> {
  const email = `sdk-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const signUp = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ name: 'SDK Test', email, password: 'correct horse battery staple' }),
  });
  if (!signUp.ok) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const cookie = signUp.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const res = await fetch(`${baseUrl}/v1/onboarding/self`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: baseUrl, cookie },
    body: JSON.stringify({ name: 'SDK Market', platform_wallet: wallet, chain_id: 84532, platform_fee_bps: 500, default_reserve_bps: 1000 }),
  });
  const body = (await res.json()) as { secret_key: string };
  if (res.status !== 201) throw new Error(`onboarding failed: ${res.status} ${JSON.stringify(body)}`);
  return body.secret_key;
}
