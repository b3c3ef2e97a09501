import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { freshDatabase, TEST_DB } from '../helpers/harness.js';

/**
 * Database.workerDb (src/db/client.ts): the operator and relayer senders use a pool of their own on
 * PostgreSQL, so a burst of API requests holding every connection of the main pool cannot hold back the
 * sender that broadcasts what they accepted. PGlite has one connection: the same database object.
 */
describe('the background senders have connections of their own', () => {
  it.runIf(TEST_DB === 'postgres')('a statement on workerDb runs while every connection of the main pool is held; the main pool waits', async () => {
    const d = await freshDatabase();
    const release: (() => void)[] = [];
    try {
      // Hold the main pool's 20 connections (the tests open it with 20), as 20 requests in flight would.
      const held = Array.from({ length: 20 }, () => d.db.connection().execute(() => new Promise<void>((resolve) => release.push(resolve))));
      for (let i = 0; i < 200 && release.length < 20; i++) await new Promise((r) => setTimeout(r, 25));
      expect(release).toHaveLength(20);
      const main = sql<{ one: number }>`select 1 as one`.execute(d.db).then(() => 'answered');
      const worker = await sql<{ one: number }>`select 1 as one`.execute(d.workerDb);
      expect(worker.rows[0]!.one).toBe(1);
      expect(await Promise.race([main, new Promise((r) => setTimeout(() => r('waiting'), 200))])).toBe('waiting');
      release.splice(0).forEach((r) => r());
      await Promise.all(held);
      expect(await main).toBe('answered');
    } finally {
      release.forEach((r) => r());
      await d.close();
    }
  });

  it.runIf(TEST_DB === 'pglite')('on PGlite it is the one connection there is', async () => {
    const d = await freshDatabase();
    try {
      expect(d.workerDb).toBe(d.db);
    } finally {
      await d.close();
    }
  });
});
