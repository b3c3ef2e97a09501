import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tx } from '../../src/db/client.js';
import { createHarness, freshDatabase, TEST_DB, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';

/**
 * On PostgreSQL every parameterised statement runs as a named prepared statement (src/db/prepared.ts):
 * parsed once per connection, then only bound and executed. PGlite has a single in-process connection and
 * no such protocol cost, so this is PostgreSQL only.
 */
describe.runIf(TEST_DB === 'postgres')('prepared statements on PostgreSQL', () => {
  let h: Harness;
  beforeAll(async () => { h = await createHarness(fakeChain()); });
  afterAll(() => h.close());

  /** The statements prepared on the connection that runs `fn` (one transaction = one connection). */
  const preparedDuring = (fn: (tx: Tx) => Promise<unknown>) =>
    h.db.transaction().execute(async (tx) => {
      await fn(tx);
      return (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(tx)).rows;
    });

  it('prepares a parameterised query once per connection and reuses it, with the right answers', async () => {
    const p = await h.platform();
    const rows = await preparedDuring(async (tx) => {
      for (let i = 0; i < 3; i++) {
        const r = await tx.selectFrom('platforms').select('id').where('id', '=', p.platformId).executeTakeFirst();
        expect(r?.id).toBe(p.platformId);
      }
      expect(await tx.selectFrom('platforms').select('id').where('id', '=', 'plt_nobody').executeTakeFirst()).toBeUndefined();
    });
    const mine = rows.filter((r) => /from "platforms" where "id" = \$1/.test(r.statement));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.name).toMatch(/^k_[0-9a-f]{24}$/);
  });

  it('runs every pooled connection with jit off (an estimate must not buy a compile: docs/performance.md "Scale")', async () => {
    const db = await freshDatabase();
    try {
      // More connections than one: each pool hands out several, and every one must carry the setting.
      const shown = await Promise.all([...Array(4)].map(() => db.db.transaction().execute(async (tx) => {
        await sql`select pg_sleep(0.05)`.execute(tx);
        return (await sql<{ jit: string; pid: number }>`select current_setting('jit') as jit, pg_backend_pid() as pid`.execute(tx)).rows[0]!;
      })));
      expect(new Set(shown.map((r) => r.pid)).size).toBe(4);
      expect(shown.map((r) => r.jit)).toEqual(['off', 'off', 'off', 'off']);
      const worker = (await sql<{ jit: string }>`select current_setting('jit') as jit`.execute(db.workerDb)).rows[0]!;
      expect(worker.jit).toBe('off');
      // The server's own default is left alone: a plain connection still sees it (on by default since PostgreSQL 12).
      const plain = new pg.Client({ connectionString: db.url });
      await plain.connect();
      const server = (await plain.query(`select current_setting('jit') as jit`)).rows[0].jit;
      await plain.end();
      expect(server).toBe('on');
    } finally {
      await db.close();
    }
  });

  it('leaves statements without parameters unnamed', async () => {
    const rows = await preparedDuring((tx) => sql`select 424242 as answer`.execute(tx));
    expect(rows.some((r) => r.statement.includes('424242'))).toBe(false);
  });

  it('serves the API as before: orders created and read back through prepared statements', async () => {
    const p = await h.platform();
    const m = await merchant(h, p.secretKey);
    const ids: string[] = [];
    // More than five executions of each: PostgreSQL may switch a prepared statement to its generic plan.
    for (let i = 0; i < 8; i++) ids.push((await order(h, p.secretKey, m.external_id, { amount: `${i + 1}.00` })).id);
    for (const [i, id] of ids.entries()) {
      const got = await h.request('GET', `/v1/orders/${id}`, { key: p.secretKey });
      expect(got.body).toMatchObject({ id, amount: `${i + 1}.00`, merchant_id: m.external_id, state: 'pending_payment' });
    }
    const list = await h.request('GET', '/v1/orders?limit=100', { key: p.secretKey });
    expect(list.body.data.map((o: { id: string }) => o.id)).toEqual([...ids].reverse());
  });
});
