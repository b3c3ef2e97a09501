import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A fresh database on the machine's PostgreSQL for tests that run the real service as a child process
 * (they always use PostgreSQL: several processes share one database, which PGlite cannot do).
 */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type PgDatabase = { name: string; url: string; query<T extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<T>>; drop(): Promise<void> };

export async function createPgDatabase(prefix = 'trisettle_r'): Promise<PgDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 3 });
  pool.on('error', () => {});
  return {
    name,
    url: url.toString(),
    query: (text, values) => pool.query(text, values as unknown[]),
    async drop() {
      await pool.end().catch(() => {});
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      await a.query(`alter database ${name} allow_connections true`).catch(() => {});
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/** Runs one statement as the superuser on the admin database (allow_connections, pg_terminate_backend). */
export async function asAdmin<T extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<T>> {
  const a = new pg.Client({ connectionString: ADMIN_URL });
  await a.connect();
  try {
    return await a.query<T>(text, values);
  } finally {
    await a.end();
  }
}
