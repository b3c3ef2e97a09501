import {
  Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import type { Executor } from '../../src/db/client.js';
import { precompiled } from '../../src/db/precompiled.js';

/** A Kysely that compiles for PostgreSQL and records what it is asked to run, answering with `rows`. */
function recordingDb(rows: unknown[] = []) {
  const ran: CompiledQuery[] = [];
  const connection: DatabaseConnection = {
    async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
      ran.push(q);
      return { rows: rows as R[] };
    },
    // eslint-disable-next-line require-yield
    async *streamQuery() { throw new Error('not used'); },
  };
  const driver: Driver = {
    async init() {}, async acquireConnection() { return connection; }, async beginTransaction() {},
    async commitTransaction() {}, async rollbackTransaction() {}, async releaseConnection() {}, async destroy() {},
  };
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db: db as Executor, ran };
}

// Arguments used out of order, one of them twice, between values the builder writes itself.
const build = (db: Executor, platformId: string, state: string, limit: number) =>
  db.selectFrom('merchants').select(['id', 'external_id'])
    .where('state', '=', state as 'active')
    .where('platform_id', '=', platformId)
    .where('reserve_bps', '<', 5000)
    .where('external_id', '!=', platformId)
    .limit(limit);

describe('precompiled queries', () => {
  it('runs the same SQL and parameters as building the query anew, for every set of arguments', async () => {
    const { db, ran } = recordingDb();
    const q = precompiled(build);
    for (const [p, s, l] of [['plt_a', 'active', 10], ['plt_b', 'suspended', 3], ['plt_a', 'active', 1]] as const) {
      await q.execute(db, p, s, l);
      const fresh = build(db, p, s, l).compile();
      expect(ran.at(-1)!.sql).toBe(fresh.sql);
      expect(ran.at(-1)!.parameters).toEqual(fresh.parameters);
    }
    expect(ran[1]!.parameters).toEqual(['suspended', 'plt_b', 5000, 'plt_b', 3]);
  });

  it('builds the query once, however often it runs', async () => {
    const { db } = recordingDb();
    let builds = 0;
    const q = precompiled((d: Executor, id: string) => { builds++; return d.selectFrom('orders').select('id').where('id', '=', id); });
    for (let i = 0; i < 5; i++) await q.execute(db, `ord_${i}`);
    expect(builds).toBe(1);
  });

  it('returns the rows, or the first of them', async () => {
    const { db } = recordingDb([{ id: 'ord_1' }, { id: 'ord_2' }]);
    const q = precompiled((d: Executor, id: string) => d.selectFrom('orders').select('id').where('id', '=', id));
    expect(await q.execute(db, 'x')).toEqual([{ id: 'ord_1' }, { id: 'ord_2' }]);
    expect(await q.executeTakeFirst(db, 'x')).toEqual({ id: 'ord_1' });
    expect(await q.executeTakeFirst(recordingDb([]).db, 'x')).toBeUndefined();
  });

  it('refuses a builder that does not pass an argument into the query', async () => {
    const { db, ran } = recordingDb();
    const q = precompiled((d: Executor, id: string, _unused: string) => d.selectFrom('orders').select('id').where('id', '=', id));
    await expect(q.execute(db, 'ord_1', 'ignored')).rejects.toThrow(/never reach/);
    expect(ran).toHaveLength(0);
  });
});
