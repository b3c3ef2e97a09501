import { getMigrations } from 'better-auth/db/migration';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { createAuth } from '../../src/modules/accounts/auth.js';
import { migrate } from '../../src/db/migrate.js';
import { createHarness, freshDatabase, testConfig, type Harness } from '../helpers/harness.js';

/**
 * Our accounts tables are written by hand in migrations/001_init.sql; better-auth's own migration
 * planner, run with the exact options the service uses, must find nothing to create or change.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const plan = (options: unknown) => getMigrations(options as Parameters<typeof getMigrations>[0], { throwOnUnsafe: false });

describe('better-auth schema', () => {
  it('finds nothing missing in our migrated database', async () => {
    const m = await plan(h.services.auth.options);
    expect(m.toBeCreated.map((t) => t.table)).toEqual([]);
    expect(m.toBeAdded.map((t) => `${t.table}: ${Object.keys(t.fields).join(', ')}`)).toEqual([]);
    expect(m.toBeAddedIndexes.map((i) => `${i.table}.${i.name}`)).toEqual([]);
    expect(m.schemaProblems).toEqual([]);
    expect(m.unsafeChanges).toEqual([]);
    expect((await m.compileMigrations()).replace(/[\s;]/g, '')).toBe('');
  });

  it('would notice a gap: on an empty database it plans every table, and a dropped column is reported', async () => {
    const empty = await freshDatabase();
    try {
      const auth = createAuth(testConfig(), empty.db, 'x'.repeat(40), createLogger('silent', 'devnet'));
      const blank = await plan(auth.options);
      expect(blank.toBeCreated.map((t) => t.table).sort()).toEqual(['account', 'rateLimit', 'session', 'user', 'verification']);

      await migrate(empty.db);
      await sql`alter table "session" drop column "ipAddress"`.execute(empty.db);
      const gap = await plan(auth.options);
      expect(gap.toBeAdded).toEqual([expect.objectContaining({ table: 'session', fields: { ipAddress: expect.anything() } })]);
    } finally {
      await empty.close();
    }
  });
});
