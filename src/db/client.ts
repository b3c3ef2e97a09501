import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.js';
import { PreparingClient } from './prepared.js';
import type { DB } from './schema.js';

export type Db = Kysely<DB>;
export type Tx = Transaction<DB>;
export type Executor = Db | Tx;

export type Database = {
  db: Db;
  /**
   * For the background senders (operator and relayer transactions): on PostgreSQL a pool of its own
   * (WORKER_POOL_SIZE connections), so a burst of API requests queued for the main pool cannot hold back the
   * sender that is to broadcast what those requests just accepted. PGlite: the same single connection.
   */
  workerDb: Db;
  kind: 'postgres' | 'pglite';
  ping(): Promise<void>;
  /**
   * LISTEN on `channel` for as long as the database is open. `onState(true)` once notifications flow,
   * `onState(false)` when they may have stopped (PostgreSQL: the listening connection broke, and is being
   * re-opened; notifications sent meanwhile are lost, so a listener must assume anything changed).
   */
  listen(channel: string, handlers: ListenHandlers): void;
  close(): Promise<void>;
};

export type ListenHandlers = { onNotify(payload: string): void; onState(up: boolean): void };

const INT8 = 20;
/** int8 columns hold base units: always bigint, on both drivers, never a JS number. */
const parseInt8 = (v: string) => BigInt(v);

/** Connections of the background senders' own pool (Database.workerDb). */
export const WORKER_POOL_SIZE = 2;

export function openPostgres(connectionString: string, max = 10): Database {
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: openPool(connectionString, max) }) });
  const workerDb = new Kysely<DB>({ dialect: new PostgresDialect({ pool: openPool(connectionString, WORKER_POOL_SIZE) }) });
  const listeners: PgListener[] = [];
  return {
    db,
    workerDb,
    kind: 'postgres',
    ping: async () => void (await sql`select 1`.execute(db)),
    listen: (channel, handlers) => void listeners.push(pgListener(connectionString, channel, handlers)),
    close: async () => {
      await Promise.all(listeners.map((l) => l.stop()));
      await Promise.all([db.destroy(), workerDb.destroy()]);
    },
  };
}

/**
 * Session settings of every pooled connection. `jit = off`: the service runs short indexed statements, and JIT
 * compiles whenever a plan's estimated cost passes `jit_above_cost`, whatever the rows actually read. A timeline
 * statement that reads 3 rows in 0.35 ms took 120 ms at 2M orders because a partition's estimate lifted its cost
 * and PostgreSQL spent 66 ms compiling 26 functions (docs/performance.md "Scale").
 */
export const SESSION_OPTIONS = '-c jit=off';

function openPool(connectionString: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    options: SESSION_OPTIONS,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    Client: PreparingClient,
    types: { getTypeParser: ((oid: number, format?: string) => (oid === INT8 ? parseInt8 : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser },
  });
  // A dropped idle client must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // pg-pool listens for a client's errors only while it is idle. A backend that dies while its client is
  // checked out between two statements (PostgreSQL restarted, failover, pg_terminate_backend mid-transaction)
  // made pg emit an unhandled 'error' that killed the whole process. The statement in flight still fails on
  // its own and the pool discards the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

type PgListener = { stop(): Promise<void> };
const LISTEN_RETRY_MS = [250, 500, 1_000, 2_000, 5_000];
const LISTEN_CHECK_MS = 10_000;
/** How the listening connection shows in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = 'trisettle-listen';

/**
 * A connection of its own (a pooled one would be handed back, and its LISTEN with it), re-opened whenever
 * it breaks, and checked every 10 s with a query: a connection that died silently (a half-open socket
 * after a failover) would otherwise look like one with nothing to say.
 */
function pgListener(connectionString: string, channel: string, h: ListenHandlers): PgListener {
  let client: pg.Client | null = null;
  let stopped = false;
  let failures = 0;
  let check: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;

  const down = (c: pg.Client) => {
    if (client !== c) return; // already handled
    client = null;
    clearInterval(check);
    c.removeAllListeners('notification');
    c.on('error', () => {});
    void c.end().catch(() => {});
    h.onState(false);
    if (!stopped) retry = setTimeout(connect, LISTEN_RETRY_MS[Math.min(failures++, LISTEN_RETRY_MS.length - 1)]);
  };

  async function connect() {
    const c = new pg.Client({ connectionString, keepAlive: true, connectionTimeoutMillis: 5_000, application_name: LISTENER_APPLICATION_NAME });
    client = c;
    c.on('error', () => down(c));
    c.on('end', () => down(c));
    c.on('notification', (m) => {
      if (m.channel === channel) h.onNotify(m.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch {
      return down(c);
    }
    if (stopped || client !== c) return void c.end().catch(() => {});
    failures = 0;
    h.onState(true);
    check = setInterval(() => {
      c.query({ text: 'select 1', query_timeout: 5_000 } as pg.QueryConfig).catch(() => down(c));
    }, LISTEN_CHECK_MS);
    check.unref();
  }

  void connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retry);
      clearInterval(check);
      const c = client;
      client = null;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => {});
        await c.end().catch(() => {});
      }
    },
  };
}

/** dataDir null → in-memory (tests). `loadDataDir`: start from a dump of another instance (PGlite.dumpDataDir) instead of an empty cluster. */
export function openPglite(dataDir: string | null, o: { loadDataDir?: Blob } = {}): Database {
  if (dataDir) mkdirSync(path.dirname(dataDir), { recursive: true });
  const pglite = new PGlite({ ...(dataDir ? { dataDir } : {}), ...(o.loadDataDir ? { loadDataDir: o.loadDataDir } : {}), parsers: { [INT8]: parseInt8 } });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    workerDb: db,
    kind: 'pglite',
    ping: async () => void (await sql`select 1`.execute(db)),
    // One connection, in this process: it never breaks. LISTEN goes through the dialect's mutex, so it can
    // never land inside (and be rolled back with) another caller's transaction.
    listen: (channel, h) => {
      void db.connection().execute(() => pglite.listen(channel, h.onNotify)).then(() => h.onState(true), () => h.onState(false));
    },
    close: () => db.destroy(),
  };
}
