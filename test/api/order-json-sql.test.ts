/**
 * The order object built in SQL (orders/serialize-sql.ts, the indexer's batched order.confirmed bodies) is
 * serializeOrder's, key for key, for rows in every state: amounts of every fraction length up to the largest
 * order, refunded amounts, nulls, microsecond timestamps (truncated to the millisecond, as a JS Date read from
 * the row), metadata of every JSON shape. Runs on the database under test (PostgreSQL or PGlite).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatUnits } from '../../src/lib/money.js';
import { orderJsonSql } from '../../src/modules/orders/serialize-sql.js';
import { serializeOrder } from '../../src/modules/orders/serialize.js';
import type { OrderRow } from '../../src/modules/orders/repo.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';

let h: Harness;
let key: string;
let m: { external_id: string };
beforeAll(async () => {
  h = await createHarness(fakeChain());
  key = (await h.platform()).secretKey;
  m = await merchant(h, key);
});
afterAll(() => h.close());

const parse = (d: unknown) => (typeof d === 'string' ? JSON.parse(d) : d);

/** Both serializers over the same rows, as stored JSON (bigint and Date already turned into strings). */
async function bothOf(ids: string[]) {
  const rows = await sql<OrderRow & { j: unknown }>`select o.*, ${orderJsonSql('o')} as j from orders o where o.id = any(${ids}::text[]) order by o.id`.execute(h.db);
  expect(rows.rows).toHaveLength(ids.length);
  return rows.rows.map(({ j, ...row }) => ({ fromSql: parse(j), fromTs: JSON.parse(JSON.stringify(serializeOrder(row as OrderRow))) }));
}

describe('orderJsonSql', () => {
  it('matches serializeOrder for fresh orders: every amount form, every metadata shape', async () => {
    const amounts = ['0.000001', '0.00001', '0.1', '0.10', '1', '7.1', '12.345678', '100.5', '999999999.999999', '1000000000', '25.000010'];
    const metadata = [{}, { a: 1 }, { nested: { list: [1, 'x"y', null, true], é: 'ü\n' } }, { big: '18446744073709551617' }];
    const ids: string[] = [];
    for (const [i, amount] of amounts.entries()) ids.push((await order(h, key, m.external_id, { amount, metadata: metadata[i % metadata.length] })).id);
    const pairs = await bothOf(ids);
    for (const { fromSql, fromTs } of pairs) expect(fromSql).toEqual(fromTs);
    expect(pairs.map((p) => p.fromSql.amount).sort()).toEqual(amounts.map((a) => formatUnits(parseUnits(a))).sort());
  });

  it('matches for rows in every state, with nullable columns set, refunds of every size and microsecond timestamps', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await order(h, key, m.external_id, { amount: ['3.21', '10', '0.000003', '1000', '5.5', '77.777777'][i] })).id);
    const states = ['confirmed', 'partially_refunded', 'refunded', 'failed', 'expired', 'confirmed'];
    for (const [i, id] of ids.entries()) {
      await sql`update orders set state = ${states[i]}, paid_by = ${i % 2 ? '0x976EA74026E726554dB657fA54763abd0C3a0aa9' : null},
          tx_hash = ${`0x${String(i).padStart(64, 'a')}`}, failure_reason = ${i === 3 ? 'payment reverted: "x"' : null},
          refunded_amount = case ${i}::int when 1 then 1 when 2 then amount when 5 then amount - 1 else 0 end,
          reserve_remaining = case when ${i}::int = 4 then 0 else reserve_hold - ${i}::int end,
          payer_address = ${i === 5 ? '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' : null},
          created_at = ${['2026-01-01 00:00:00.999999+00', '2026-06-30 23:59:59.000001+00', '1999-12-31 23:59:59.9995+00', '2026-02-28 12:00:00+00', '2030-07-04 01:02:03.456789+05', '2026-11-25 05:00:00.5+00'][i]}::timestamptz,
          confirmed_at = ${[`2026-01-01 00:00:01.000999+00`, null, '2026-03-01 00:00:00.123456-08', null, null, '2026-11-25 05:00:00.0004+00'][i]}::timestamptz,
          deadline_at = ${'2027-01-01 00:00:00.000001+00'}::timestamptz
        where id = ${id}`.execute(h.db);
    }
    const pairs = await bothOf(ids);
    for (const { fromSql, fromTs } of pairs) expect(fromSql).toEqual(fromTs);
    const byId = new Map(pairs.map((p) => [p.fromSql.id, p.fromSql]));
    expect(byId.get(ids[0]!)!.created_at).toBe('2026-01-01T00:00:00.999Z');
    expect(byId.get(ids[2]!)!.refunded_amount).toBe('0.000003');
    expect(byId.get(ids[4]!)!.created_at).toBe('2030-07-03T20:02:03.456Z');
    expect(byId.get(ids[1]!)!.confirmed_at).toBeNull();
  });

  it('matches for manual orders: authorized, captured in part, voided, with every charge-later column set', async () => {
    const ids: string[] = [];
    for (const amount of ['8.00', '12.345678', '0.000001']) ids.push((await order(h, key, m.external_id, { amount, capture_method: 'manual', capture_within_seconds: 7200 })).id);
    const states = ['authorized', 'confirmed', 'voided'];
    for (const [i, id] of ids.entries()) {
      await sql`update orders set state = ${states[i]}, amount_authorized = amount,
          amount_captured = case ${i}::int when 1 then amount - 345678 else 0 end,
          service_fee = case ${i}::int when 1 then 0 else service_fee end, platform_fee = case ${i}::int when 1 then 0 else platform_fee end,
          merchant_gross = case ${i}::int when 1 then amount - 345678 else merchant_gross end,
          reserve_hold = case ${i}::int when 1 then 0 else reserve_hold end, merchant_available = case ${i}::int when 1 then amount - 345678 else merchant_available end,
          capture_requested_at = ${i === 2 ? null : '2026-05-01 10:00:00.000001+00'}::timestamptz,
          void_requested_at = ${i === 2 ? '2026-05-02 10:00:00.9999+00' : null}::timestamptz,
          void_reason = ${i === 2 ? 'authorization_expired' : null}, capture_before = ${'2026-05-08 00:00:00.5+00'}::timestamptz
        where id = ${id}`.execute(h.db);
    }
    const pairs = await bothOf(ids);
    for (const { fromSql, fromTs } of pairs) expect(fromSql).toEqual(fromTs);
    const byId = new Map(pairs.map((p) => [p.fromSql.id, p.fromSql]));
    expect(byId.get(ids[1]!)).toMatchObject({ capture_method: 'manual', amount_authorized: '12.345678', amount_captured: '12.00', capture_before: '2026-05-08T00:00:00.500Z' });
    expect(byId.get(ids[2]!)).toMatchObject({ state: 'voided', void_reason: 'authorization_expired', void_requested_at: '2026-05-02T10:00:00.999Z', amount_captured: '0.00' });
  });
});

function parseUnits(s: string): bigint {
  const [w, f = ''] = s.split('.');
  return BigInt(w!) * 1_000_000n + BigInt(f.padEnd(6, '0'));
}
