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
  kind: 'postgres' | 'pglite';
  ping(): Promise<void>;
  close(): Promise<void>;
};

const INT8 = 20;
/** int8 columns hold base units: always bigint, on both drivers, never a JS number. */
const parseInt8 = (v: string) => BigInt(v);

export function openPostgres(connectionString: string, max = 10): Database {
  const pool = new pg.Pool({
    connectionString,
    max,
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
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'postgres',
    ping: async () => void (await sql`select 1`.execute(db)),
    close: () => db.destroy(),
  };
}

/** dataDir null → in-memory (tests). */
export function openPglite(dataDir: string | null): Database {
  if (dataDir) mkdirSync(path.dirname(dataDir), { recursive: true });
  const pglite = new PGlite(dataDir ?? undefined, { parsers: { [INT8]: parseInt8 } });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    ping: async () => void (await sql`select 1`.execute(db)),
    close: () => db.destroy(),
  };
}
