import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { PGliteDialect } from '../src/db/pglite-dialect.js';
import { openPostgres } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import type { DB } from '../src/db/schema.js';
import { PGLITE_DUMP_ENV, PG_TEMPLATE_ENV, TEST_DB, adminQuery, databaseUrl } from './helpers/harness.js';

/**
 * Once per `vitest run`: a database migrated by the real migrations, which each test harness then copies instead of
 * migrating its own (harness.ts migratedDatabase). PGlite: a dump of its data directory in a file (loading it skips
 * initdb and the migrations). PostgreSQL: a template database (`create database … template`). The path or the name
 * reaches the test processes through the environment, which they inherit. Tests of the migrations themselves still
 * build their schema step by step (freshDatabase, then migrate).
 */
export default async function setup() {
  if (TEST_DB === 'pglite') {
    const pglite = new PGlite();
    const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
    const dir = mkdtempSync(path.join(tmpdir(), 'trisettle-pglite-'));
    try {
      await migrate(db);
      const file = path.join(dir, 'migrated.tar');
      writeFileSync(file, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
      process.env[PGLITE_DUMP_ENV] = file;
    } finally {
      await db.destroy();
    }
    return () => {
      delete process.env[PGLITE_DUMP_ENV];
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const name = `trisettle_tpl_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const database = openPostgres(databaseUrl(name), 2);
  try {
    await migrate(database.db);
  } catch (err) {
    await database.close();
    await adminQuery(`drop database if exists ${name} with (force)`);
    throw err;
  }
  await database.close(); // a template is copied only while nobody is connected to it
  process.env[PG_TEMPLATE_ENV] = name;
  return async () => {
    delete process.env[PG_TEMPLATE_ENV];
    await adminQuery(`drop database if exists ${name} with (force)`);
  };
}
