import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openPglite, openPostgres, type Database } from '../../src/db/client.js';

export type DbKind = 'pglite' | 'postgres';
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Where a fresh database lives: a new PostgreSQL database, or a new PGlite directory on disk (as in devnet). */
export type DbLocation = { kind: DbKind; url?: string; dir?: string; dispose(): Promise<void> };

export async function freshLocation(kind: DbKind): Promise<DbLocation> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'trisettle-bench-'));
    return { kind, dir: path.join(dir, 'pg'), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `trisettle_bench_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { kind, url: url.toString(), dispose: async () => void (await adminQuery(`drop database if exists ${name} with (force)`)) };
}

/** Opens a location the way main.ts does: a pg pool of the default size (10), or PGlite in its directory. */
export function openLocation(loc: Pick<DbLocation, 'kind' | 'url' | 'dir'>): Database {
  return loc.kind === 'postgres' ? openPostgres(loc.url!) : openPglite(loc.dir!);
}

export async function adminQuery(text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

export async function postgresVersion(): Promise<string | null> {
  try {
    return String((await adminQuery('show server_version')).rows[0]?.server_version ?? null);
  } catch {
    return null;
  }
}
