import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeChain, merchant, order } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { pay } from './balance-fixtures.js';

/**
 * Migrations on a database written before them: 019 (every refund gets its order's merchant, new ones too) and 038
 * (the reserve held per merchant, backfilled from the orders, then moved by the trigger).
 */
const FILE = path.join(import.meta.dirname, '../../src/db/migrations/019_refund_merchant.sql');
const FILE_038 = path.join(import.meta.dirname, '../../src/db/migrations/038_balance_reserves.sql');

let h: Harness;
beforeAll(async () => {
  h = await createHarness(fakeChain());
}, 60_000);
afterAll(() => h?.close());

const refund = async (key: string, orderId: string) => {
  const r = await h.request('POST', '/v1/refunds', { key, body: { order_id: orderId, amount: '1.00' } });
  expect(r.status).toBe(201);
  return r.body.id as string;
};
const merchantsOfRefunds = async () => (await sql<{ id: string; m: string | null; om: string }>`
  select r.id, r.merchant_external_id as m, o.merchant_external_id as om from refunds r join orders o on o.id = r.order_id order by r.id`.execute(h.db)).rows;

describe('migration 019 (refunds carry their merchant)', () => {
  it('backfills existing refunds from their orders, then fills new ones on insert', async () => {
    const p = await h.platform();
    const [m1, m2] = [await merchant(h, p.secretKey), await merchant(h, p.secretKey)];
    const [a, b] = [await order(h, p.secretKey, m1.external_id, { amount: '10.00' }), await order(h, p.secretKey, m2.external_id, { amount: '10.00' })];
    await pay(h, a, new Date('2026-05-01T00:00:00Z'));
    await pay(h, b, new Date('2026-05-01T01:00:00Z'));
    await refund(p.secretKey, a.id);
    await refund(p.secretKey, b.id);
    // The database as it was before 019 (the harness migrated it to the newest version).
    await sql.raw(`drop trigger refunds_set_merchant on refunds; drop function refunds_set_merchant();
      drop index refunds_merchant_completed_idx; alter table refunds drop column merchant_external_id`).execute(h.db);
    await sql.raw(readFileSync(FILE, 'utf8')).execute(h.db);
    const after = await merchantsOfRefunds();
    expect(after.map((r) => r.m)).toEqual(after.map((r) => r.om));
    expect(new Set(after.map((r) => r.m))).toEqual(new Set([m1.external_id, m2.external_id]));
    await refund(p.secretKey, a.id);
    const again = await merchantsOfRefunds();
    expect(again).toHaveLength(3);
    expect(again.every((r) => r.m === r.om)).toBe(true);
  });
});

describe('migration 038 (reserve held per merchant)', () => {
  it('backfills the held reserve of every merchant from its orders, then follows each order\'s reserve', async () => {
    const p = await h.platform();
    const [m1, m2] = [await merchant(h, p.secretKey, { reserve_bps: 1000 }), await merchant(h, p.secretKey, { reserve_bps: 500 })];
    const [a, b, c] = [await order(h, p.secretKey, m1.external_id, { amount: '10.00' }), await order(h, p.secretKey, m1.external_id, { amount: '20.00' }),
      await order(h, p.secretKey, m2.external_id, { amount: '10.00' })];
    await pay(h, a, new Date('2026-05-01T00:00:00Z'));
    await pay(h, b, new Date('2026-05-01T01:00:00Z'));
    // The database as it was before 038: no table, no triggers, the old index.
    await sql.raw(`drop trigger orders_reserve_held_update on orders; drop trigger orders_reserve_held_insert on orders;
      drop trigger orders_reserve_held_delete on orders; drop function orders_reserve_held(); drop table balance_reserves;
      drop index orders_reserve_held_idx; create index orders_reserve_held_idx on orders (platform_id, merchant_external_id)
        include (reserve_remaining, reserve_release_at, chain_id) where reserve_remaining > 0`).execute(h.db);
    await pay(h, c, new Date('2026-05-01T02:00:00Z')); // paid while nothing kept the sum
    await sql.raw(readFileSync(FILE_038, 'utf8')).execute(h.db);
    const held = async () => (await sql<{ m: string; held: string; first: Date }>`select merchant_id as m, held::text as held, first_release_at as first
      from balance_reserves where platform_id = ${p.platformId} order by 1`.execute(h.db)).rows;
    const recount = async () => (await sql<{ m: string; held: string; first: Date }>`select merchant_external_id as m, sum(reserve_remaining)::text as held,
      min(reserve_release_at) as first from orders where platform_id = ${p.platformId} group by 1 order by 1`.execute(h.db)).rows;
    expect(await held()).toEqual(await recount());
    expect((await held()).map((r) => r.held).sort()).toEqual(['2820000', '470000'].sort()); // 9.40 % and 4.70 % of what each merchant was paid
    await sql`update orders set reserve_remaining = reserve_remaining - 100000 where id = ${a.id}`.execute(h.db);
    expect(await held()).toEqual(await recount());
  });
});
