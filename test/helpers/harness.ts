import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { sql } from 'kysely';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type ChainConfig, type Config } from '../../src/config.js';
import { openPglite, openPostgres, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import type { Clock } from '../../src/lib/clock.js';
import { createLogger, type Logger } from '../../src/lib/logger.js';
import { createServices, type Services } from '../../src/services.js';

/**
 * In-process test harness: a fresh migrated database per harness (PGlite in memory, or a new database on
 * the machine's PostgreSQL when TEST_DB=postgres), the real services and app, and factories.
 */
export const TEST_DB = (process.env.TEST_DB ?? 'pglite') as 'pglite' | 'postgres';
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const ADMIN_TOKEN = 'adm_test_token_0123456789abcdef';
export const BASE = 'http://localhost:3000';

/** Where the test run's migrated database is (test/global-setup.ts): a PGlite dump file, a PostgreSQL template's name. */
export const PGLITE_DUMP_ENV = 'TRISETTLE_TEST_PGLITE_DUMP';
export const PG_TEMPLATE_ENV = 'TRISETTLE_TEST_PG_TEMPLATE';

/** One statement on the machine's PostgreSQL as its admin (create and drop databases). */
export async function adminQuery(text: string) {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(text);
  } finally {
    await admin.end();
  }
}

export const databaseUrl = (name: string) => {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

/** An empty database: in-memory PGlite, or a new database on the machine's PostgreSQL, dropped by close(). */
export async function freshDatabase(o: { template?: string } = {}): Promise<Database & { url?: string }> {
  if (TEST_DB === 'pglite') return openPglite(null);
  const name = `trisettle_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${name}${o.template ? ` template ${o.template}` : ''}`);
  const url = databaseUrl(name);
  const database = openPostgres(url, 20);
  return {
    ...database,
    url,
    async close() {
      await database.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * A database holding every migration: a copy of the run's migrated one (test/global-setup.ts) when there is one,
 * else a fresh database (the caller migrates it either way: a copy has nothing left to apply).
 */
export async function migratedDatabase(): Promise<Database & { url?: string }> {
  const dump = process.env[PGLITE_DUMP_ENV];
  if (TEST_DB === 'pglite') return dump ? openPglite(null, { loadDataDir: new Blob([readFileSync(dump)]) }) : openPglite(null);
  return freshDatabase({ template: process.env[PG_TEMPLATE_ENV] });
}

/**
 * The chain a harness runs when a test names none: platforms, merchants and invitations are refused
 * (422 unsupported_chain) on a chain the deployment does not run. Nothing here calls its RPC.
 */
export const API_ONLY_CHAIN: ChainConfig = {
  chainId: 84532, rpcUrl: 'http://127.0.0.1:9', router: '0x5FbDB2315678afecb367f032d93F642f64180aa3', usdc: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', confirmations: 1,
};

export function testConfig(overrides: Partial<Config> = {}, chains: ChainConfig[] = []): Config {
  // In-process requests have no socket: the tests stand behind one proxy and name the client in X-Forwarded-For.
  const base = loadConfig({ PORT: '3000', LOG_LEVEL: 'silent', ADMIN_TOKEN, TRUST_PROXY_HOPS: '1' }, []);
  return { ...base, chains: new Map(chains.map((c) => [c.chainId, c])), ...overrides };
}

export type Res<T = any> = { status: number; body: T; headers: Headers; text: string };
export type ReqOpts = { body?: unknown; raw?: string; headers?: Record<string, string>; key?: string; cookie?: string; idem?: string };

export type Harness = Awaited<ReturnType<typeof createHarness>>;

export async function createHarness(opts: { config?: Partial<Config>; chains?: ChainConfig[]; database?: Database; logger?: Logger; authSecret?: string; clock?: Clock } = {}) {
  const database = opts.database ?? (await migratedDatabase());
  await migrate(database.db);
  const config = testConfig(opts.config, opts.chains ?? [API_ONLY_CHAIN]);
  const logger = opts.logger ?? createLogger('silent', config.env);
  const services: Services = createServices({ config, database, logger, authSecret: opts.authSecret ?? 'test-secret-test-secret-test-secret-0123', clock: opts.clock });
  const app: App = buildApp(services);
  let emailSeq = 0;
  let signUpSeq = 0;

  async function request<T = any>(method: string, path: string, o: ReqOpts = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.body !== undefined || o.raw !== undefined) headers['content-type'] ??= 'application/json';
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.cookie) headers.cookie = o.cookie;
    if (o.idem) headers['idempotency-key'] = o.idem;
    const res = await app.request(`${BASE}${path}`, {
      method,
      headers,
      body: o.raw ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: body as T, headers: res.headers, text };
  }

  async function signUp(email = `user${++emailSeq}-${randomBytes(3).toString('hex')}@example.com`, password = 'correct horse battery') {
    // Each sign-up from its own client address: better-auth rate-limits sign-ups to 10 a minute per address.
    const seq = ++signUpSeq;
    const ip = `10.${(seq >> 16) & 255}.${(seq >> 8) & 255}.${seq & 255}`;
    const res = await request('POST', '/api/auth/sign-up/email', { body: { name: 'Test User', email, password }, headers: { origin: BASE, 'x-forwarded-for': ip } });
    if (res.status !== 200) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
    return { email, password, cookie: cookieFrom(res.headers), userId: res.body.user.id as string };
  }

  async function platform(input: Partial<Record<string, unknown>> = {}) {
    const user = await signUp();
    const res = await request('POST', '/v1/onboarding/self', {
      cookie: user.cookie,
      body: {
        name: 'Acme Market',
        platform_wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
        chain_id: 84532,
        platform_fee_bps: 500,
        default_reserve_bps: 1000,
        ...input,
      },
    });
    if (res.status !== 201) throw new Error(`onboarding failed: ${res.status} ${res.text}`);
    return { ...user, platformId: res.body.platform_id as string, secretKey: res.body.secret_key as string, publishableKey: res.body.publishable_key as string, platform: res.body };
  }

  async function count(table: string): Promise<number> {
    const r = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)}`.execute(database.db);
    return Number(r.rows[0]!.n);
  }

  return {
    app, services, database, db: database.db, config, request, signUp, platform, count,
    close: () => database.close(),
  };
}

export function cookieFrom(headers: Headers): string {
  const all = headers.getSetCookie();
  return all.map((c) => c.split(';')[0]).filter((c) => !c!.endsWith('=')).join('; ');
}
