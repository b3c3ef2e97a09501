import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { sql } from 'kysely';
import type { Db } from './client.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any number of instances may start at once: one advisory lock serialises migration runs.
const MIGRATION_LOCK = 727_001;

/**
 * Applies the migrations not applied yet, in name order. `upTo` (a prefix such as '033') stops after the last
 * migration whose name sorts at or before it: a test builds an older schema, writes rows, then migrates the rest.
 */
export async function migrate(db: Db, o: { upTo?: string } = {}): Promise<string[]> {
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()
    .filter((f) => o.upTo === undefined || f.slice(0, o.upTo.length) <= o.upTo);
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(conn);
    try {
      await sql`create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())`.execute(conn);
      const done = new Set((await sql<{ name: string }>`select name from schema_migrations`.execute(conn)).rows.map((r) => r.name));
      const applied: string[] = [];
      for (const file of files) {
        if (done.has(file)) continue;
        const text = readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
        await conn.transaction().execute(async (tx) => {
          await sql.raw(text).execute(tx);
          await sql`insert into schema_migrations (name) values (${file})`.execute(tx);
        });
        applied.push(file);
      }
      return applied;
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(conn);
    }
  });
}
