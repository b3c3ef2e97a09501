import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeChain, merchant, order, WALLETS } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { rowCounts } from '../security/tables.js';
import { BUYER, completeRefund, pay, setChainTime, settle } from './balance-fixtures.js';

/**
 * Balances, the ledger and net volume over state applied through the indexer's own hooks (no chain).
 * Platform fee 5 %, service fee 1 %. m1 reserve 10 %, m2 none.
 *   A 100.00 (m1) paid T0      split 1.00 / 5.00 / 84.60 / reserve 9.40; refund 20.00 at T0+1d: 9.40 reserve + 10.60 submitter
 *   B  50.00 (m1) paid T0+1h   0.50 / 2.50 / 42.30 / 4.70; refund 1.00 at T0+1d+1h from reserve; 3.70 released at T0+8d
 *   C  10.00 (m2) paid T0+2h   0.10 / 0.50 / 9.40 / 0 (no reserve leg)
 *   D  30.00 (m1) paid T0+3h   0.30 / 1.50 / 25.38 / 2.82; its release is refused at T0+8d (reserve kept)
 */
const T0 = new Date('2026-03-01T12:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const H = 3_600_000;
const D = 24 * H;

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let other: Awaited<ReturnType<Harness['platform']>>;
let m1: { external_id: string };
let m2: { external_id: string };
const o: Record<string, any> = {};
let treasury: string;

beforeAll(async () => {
  const chain = fakeChain();
  treasury = chain.config.serviceTreasury!;
  h = await createHarness(chain);
  p = await h.platform({ platform_fee_bps: 500 });
  other = await h.platform();
  m1 = await merchant(h, p.secretKey, { reserve_bps: 1000 });
  m2 = await merchant(h, p.secretKey, { reserve_bps: 0, merchant_wallet: WALLETS.merchant2 });
  o.A = await order(h, p.secretKey, m1.external_id, { amount: '100.00' });
  o.B = await order(h, p.secretKey, m1.external_id, { amount: '50.00' });
  o.C = await order(h, p.secretKey, m2.external_id, { amount: '10.00' });
  o.D = await order(h, p.secretKey, m1.external_id, { amount: '30.00' });
  await pay(h, o.A, T0);
  await pay(h, o.B, at(H));
  await pay(h, o.C, at(2 * H));
  await pay(h, o.D, at(3 * H));
  await setChainTime(h, at(4 * H));
}, 60_000);
afterAll(() => h?.close());

const get = (path: string, key = p.secretKey) => h.request('GET', path, { key });

describe('GET /v1/balance', () => {
  it('holds every reserve until the indexed chain time passes its hold, and says when the next one frees', async () => {
    const b = (await get('/v1/balance')).body;
    expect(b).toMatchObject({
      object: 'balance', as_of: at(4 * H).toISOString(), gross_volume: '190.00', platform_fees: '9.50',
      reserve_held: '16.92', reserve_releasable: '0.00', next_release_at: at(7 * D).toISOString(), released: '0.00',
    });
    // The wall clock (2026-11 and later) is far past every hold: only the chain's time counts.
    expect(new Date(b.next_release_at).getTime()).toBeLessThan(Date.now());
  });

  it('after refunds and a batch with one refused release: held, releasable, released, refunded per merchant and in total', async () => {
    const rA = await h.request('POST', '/v1/refunds', { key: p.secretKey, body: { order_id: o.A.id, amount: '20.00' } });
    expect(rA.status).toBe(201);
    await completeRefund(h, rA.body, 9_400_000n, at(D));
    const rB = await h.request('POST', '/v1/refunds', { key: p.secretKey, body: { order_id: o.B.id, amount: '1.00' } });
    await completeRefund(h, rB.body, 1_000_000n, at(D + H));
    o.rA = rA.body;
    o.rB = rB.body;
    await setChainTime(h, at(7 * D + 2 * H)); // B's hold is over, D's is not yet
    const mid = (await get('/v1/balance')).body;
    expect(mid).toMatchObject({ reserve_held: '6.52', reserve_releasable: '3.70', next_release_at: at(7 * D + 3 * H).toISOString() });

    o.batch = await settle(h, p.platformId, [{ orderId: o.B.id, amount: 3_700_000n, released: true }, { orderId: o.D.id, amount: 2_820_000n, released: false }], at(8 * D));
    await setChainTime(h, at(8 * D));
    const b = (await get('/v1/balance')).body;
    expect(b).toMatchObject({
      gross_volume: '190.00', platform_fees: '9.50', reserve_held: '2.82', reserve_releasable: '2.82', next_release_at: null,
      released: '3.70', refunded_from_reserve: '10.40', refunded_from_submitter: '10.60',
    });
    expect(b.merchants).toEqual([
      { merchant_id: m1.external_id, gross_volume: '180.00', platform_fees: '9.00', reserve_held: '2.82', reserve_releasable: '2.82', next_release_at: null, released: '3.70', refunded_from_reserve: '10.40', refunded_from_submitter: '10.60', authorized: '0.00' },
      { merchant_id: m2.external_id, gross_volume: '10.00', platform_fees: '0.50', reserve_held: '0.00', reserve_releasable: '0.00', next_release_at: null, released: '0.00', refunded_from_reserve: '0.00', refunded_from_submitter: '0.00', authorized: '0.00' },
    ].sort((x, y) => (x.merchant_id < y.merchant_id ? -1 : 1)));
    const one = (await get(`/v1/balance?merchant_id=${m2.external_id}`)).body;
    expect(one).toMatchObject({ gross_volume: '10.00', platform_fees: '0.50', reserve_held: '0.00' });
    expect(one.merchants).toHaveLength(1);
  });

  it('keeps the held reserve per merchant (balance_reserves, moved by a trigger on orders) equal to a recount of the orders', async () => {
    const recount = async () => {
      const kept = await sql<{ m: string; held: string; first: Date }>`select merchant_id as m, held::text as held, first_release_at as first
        from balance_reserves where platform_id = ${p.platformId} and held <> 0 order by 1`.execute(h.db);
      const orders = await sql<{ m: string; held: string; first: Date }>`select merchant_external_id as m, sum(reserve_remaining)::text as held,
        min(reserve_release_at) as first from orders where platform_id = ${p.platformId} and reserve_remaining > 0 group by 1 order by 1`.execute(h.db);
      expect(kept.rows).toEqual(orders.rows);
      return kept.rows.map(({ m, held }) => ({ m, held }));
    };
    // After payments, refunds from the reserve, a release and a refused release (the tests above): D's 2.82 is left.
    expect(await recount()).toEqual([{ m: m1.external_id, held: '2820000' }]);
    // A reorg's rewind puts a reserve back and takes it away again, as the indexer's writes do.
    await sql`update orders set reserve_remaining = 3700000 where id = ${o.B.id}`.execute(h.db);
    expect(await recount()).toEqual([{ m: m1.external_id, held: '6520000' }]);
    expect((await get('/v1/balance')).body).toMatchObject({ reserve_held: '6.52', reserve_releasable: '6.52' });
    await sql`update orders set reserve_remaining = 0 where id = ${o.B.id}`.execute(h.db);
    expect(await recount()).toEqual([{ m: m1.external_id, held: '2820000' }]);
    // Re-applied in a later block: a new hold end; the earliest follows it both ways.
    await sql`update orders set reserve_release_at = reserve_release_at + interval '1 day' where id = ${o.D.id}`.execute(h.db);
    await recount();
    await sql`update orders set reserve_remaining = 3700000 where id = ${o.B.id}`.execute(h.db);
    await recount();
    await sql`update orders set reserve_release_at = reserve_release_at - interval '1 day' where id = ${o.D.id}`.execute(h.db);
    await sql`update orders set reserve_remaining = 0 where id = ${o.B.id}`.execute(h.db);
    expect(await recount()).toEqual([{ m: m1.external_id, held: '2820000' }]);
  });

  it('moves the held reserve once per statement: one update of many orders, both ways, equals a recount (migration 040)', async () => {
    const kept = async () => (await sql<{ m: string; held: string; first: Date }>`select merchant_id as m, held::text as held, first_release_at as first
      from balance_reserves where platform_id = ${p.platformId} and held <> 0 order by 1`.execute(h.db)).rows;
    const recount = async () => (await sql<{ m: string; held: string; first: Date }>`select merchant_external_id as m, sum(reserve_remaining)::text as held,
      min(reserve_release_at) as first from orders where platform_id = ${p.platformId} and reserve_remaining > 0 group by 1 order by 1`.execute(h.db)).rows;
    const before = await kept();
    const paid = sql`platform_id = ${p.platformId} and reserve_release_at is not null`;
    // Every paid order of both merchants in one statement: each gets a reserve (some had none) and a later hold end.
    await sql`update orders set reserve_remaining = reserve_remaining + 1000, reserve_release_at = reserve_release_at + interval '2 days' where ${paid}`.execute(h.db);
    expect(await kept()).toEqual(await recount());
    expect((await kept()).length).toBeGreaterThan(before.length - 1);
    // One statement moving some orders' hold end earlier and others' reserve to nothing: the earliest is looked up again.
    await sql`update orders set reserve_remaining = case when reserve_remaining % 2 = 0 then 0 else reserve_remaining end,
      reserve_release_at = reserve_release_at - interval '3 days' where ${paid}`.execute(h.db);
    expect(await kept()).toEqual(await recount());
    // A statement that changes neither column moves nothing.
    await sql`update orders set metadata = metadata where ${paid}`.execute(h.db);
    expect(await kept()).toEqual(await recount());
    // Back as it was, in one statement.
    await sql`update orders set reserve_remaining = greatest(reserve_remaining - 1000, 0), reserve_release_at = reserve_release_at + interval '1 day' where ${paid}`.execute(h.db);
    expect(await kept()).toEqual(await recount());
  });

  it("shows another platform nothing of this one's, and 404s a merchant that is not the caller's", async () => {
    const b = (await get('/v1/balance', other.secretKey)).body;
    expect(b).toMatchObject({ gross_volume: '0.00', reserve_held: '0.00', merchants: [] });
    expect((await get(`/v1/balance?merchant_id=${m1.external_id}`, other.secretKey)).status).toBe(404);
    expect((await get('/v1/balance_transactions', other.secretKey)).body.data).toEqual([]);
  });
});

describe('balance closings', () => {
  it('reads never write: before the closing worker runs there is no closing, and the figures are the same after it', async () => {
    await sql`delete from balance_closed_merchants`.execute(h.db);
    await sql`delete from balance_closed_days`.execute(h.db);
    await sql`delete from balance_closings`.execute(h.db);
    const [balance, volume] = [(await get('/v1/balance')).body, (await get('/v1/balance/net_volume?days=30')).body];
    expect((await sql`select * from balance_closings`.execute(h.db)).rows).toEqual([]);
    expect(await h.services.balance.closeAll()).toBe(1); // the one platform with paid orders
    expect((await get('/v1/balance')).body).toEqual(balance);
    expect((await get('/v1/balance/net_volume?days=30')).body).toEqual(volume);
  });

  it('closed sums plus the live part equal a full recount: dropping the closings changes no figure', async () => {
    await h.services.balance.closeAll();
    const closed = await sql<{ t: Date }>`select closed_until as t from balance_closings where platform_id = ${p.platformId}`.execute(h.db);
    expect(closed.rows.map((r) => new Date(r.t).toISOString())).toEqual(['2026-03-09T12:00:00.000Z']); // the start of the chain time's minute
    const [balance, volume] = [(await get('/v1/balance')).body, (await get('/v1/balance/net_volume?days=30')).body];
    await sql`delete from balance_closed_merchants`.execute(h.db);
    await sql`delete from balance_closed_days`.execute(h.db);
    await sql`delete from balance_closings`.execute(h.db);
    // Another chain indexed only up to 1971 holds every closing back: now everything is summed live.
    await sql`insert into chain_cursors (chain_id, last_block, last_block_time) values (1, 1, '1971-01-01T00:00:00Z')`.execute(h.db);
    const [again, volumeAgain] = await Promise.all([get('/v1/balance'), get('/v1/balance/net_volume?days=30')]);
    await sql`delete from chain_cursors where chain_id = 1`.execute(h.db);
    expect((await sql`select * from balance_closed_merchants`.execute(h.db)).rows).toEqual([]);
    expect(again.body).toEqual(balance);
    expect(volumeAgain.body).toEqual(volume);
  });

  it('concurrent closers (a worker per instance) close each window once', async () => {
    const expected = (await get('/v1/balance')).body;
    await sql`delete from balance_closed_merchants`.execute(h.db);
    await sql`delete from balance_closed_days`.execute(h.db);
    await sql`delete from balance_closings`.execute(h.db);
    await Promise.all(Array.from({ length: 6 }, () => h.services.balance.closeAll()));
    expect((await get('/v1/balance')).body).toEqual(expected);
    const sums = await sql<{ gross: string }>`select sum(gross)::text as gross from balance_closed_merchants`.execute(h.db);
    expect(sums.rows[0]!.gross).toBe('190000000');
  });
});

describe('GET /v1/balance_transactions', () => {
  const all = async (q = '') => (await get(`/v1/balance_transactions?limit=100${q}`)).body.data as any[];

  it('has one row per money movement, each traceable to its log, with the right parties', async () => {
    const rows = await all();
    expect(rows).toHaveLength(20); // A 4, B 4, C 3 (no reserve), D 4, refund A 2, refund B 1, release B, refused D
    const byType = (t: string) => rows.filter((r) => r.type === t);
    expect(byType('payment_reserve_hold').map((r) => r.order_id).sort()).toEqual([o.A.id, o.B.id, o.D.id].sort());
    const a = rows.filter((r) => r.order_id === o.A.id && r.type.startsWith('payment_'));
    expect(Object.fromEntries(a.map((r) => [r.type, [r.amount, r.from_address, r.to_address]]))).toEqual({
      payment_service_fee: ['1.00', BUYER, treasury],
      payment_platform_fee: ['5.00', BUYER, WALLETS.platform],
      payment_merchant_available: ['84.60', BUYER, WALLETS.merchant],
      payment_reserve_hold: ['9.40', BUYER, o.A.pay_to],
    });
    expect(byType('refund_from_reserve').map((r) => [r.refund_id, r.amount, r.from_address, r.to_address])).toEqual([
      [o.rB.id, '1.00', o.B.pay_to, BUYER], [o.rA.id, '9.40', o.A.pay_to, BUYER],
    ]);
    expect(byType('refund_from_submitter').map((r) => [r.refund_id, r.amount, r.from_address])).toEqual([[o.rA.id, '10.60', null]]);
    expect(byType('reserve_release')).toMatchObject([{ order_id: o.B.id, settlement_id: o.batch.id, amount: '3.70', status: 'posted', tx_hash: o.batch.hash, to_address: WALLETS.merchant, block_time: at(8 * D).toISOString() }]);
    expect(byType('reserve_release_failed')).toMatchObject([{ order_id: o.D.id, amount: '2.82', status: 'failed' }]);
    for (const r of rows) {
      expect(r.id).toMatch(/^btx_[A-Za-z0-9_]+$/);
      expect(r.log_index, r.id).toEqual(expect.any(Number));
      expect(r.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(20);
    const times = rows.map((r) => r.block_time);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('pages through the same rows with the cursor, none twice, none lost, ids stable', async () => {
    const full = await all();
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await get(`/v1/balance_transactions?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen.map((r) => r.id)).toEqual(full.map((r) => r.id));
    expect(await all()).toEqual(full);
  });

  it('filters by merchant, type and block-time range', async () => {
    expect((await all(`&merchant_id=${m2.external_id}`)).map((r) => r.type).sort()).toEqual(['payment_merchant_available', 'payment_platform_fee', 'payment_service_fee']);
    // m1's refunds and releases come through the merchant filter too (refunds carry their order's merchant, migration 019).
    const full = await all();
    const mine = await all(`&merchant_id=${m1.external_id}`);
    expect(mine.map((r) => r.id)).toEqual(full.filter((r) => r.merchant_id === m1.external_id).map((r) => r.id));
    expect(mine.filter((r) => r.type.startsWith('refund_')).map((r) => r.refund_id).sort()).toEqual([o.rA.id, o.rA.id, o.rB.id].sort());
    expect(mine.filter((r) => r.type.startsWith('reserve_')).map((r) => r.order_id).sort()).toEqual([o.B.id, o.D.id].sort());
    const copied = await sql<{ n: number }>`select count(*)::int as n from refunds r join orders o on o.id = r.order_id
      where r.merchant_external_id = o.merchant_external_id`.execute(h.db);
    expect(copied.rows[0]!.n).toBe(2);
    expect((await all('&type=payment_platform_fee')).map((r) => r.amount)).toEqual(['1.50', '0.50', '2.50', '5.00']);
    const day1 = await all(`&from=${encodeURIComponent(at(D).toISOString())}&to=${encodeURIComponent(at(2 * D).toISOString())}`);
    expect(day1.map((r) => r.type).sort()).toEqual(['refund_from_reserve', 'refund_from_reserve', 'refund_from_submitter']);
    expect(await all(`&from=${encodeURIComponent(at(8 * D).toISOString())}&to=${encodeURIComponent(at(8 * D + 1).toISOString())}`)).toHaveLength(2);
  });

  it('refuses unknown filters, an inverted range, limits out of range, a bad type or cursor: 422 naming the parameter, nothing changed', async () => {
    const before = await rowCounts(h);
    const cases: [string, string][] = [
      ['?merchant=x', 'merchant'], ['?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'to'], ['?from=2026-03-01T00:00:00Z&to=2026-03-01T00:00:00Z', 'to'],
      ['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?type=payout', 'type'], ['?from=yesterday', 'from'], ['?cursor=abc', 'cursor'],
    ];
    for (const [q, param] of cases) {
      const res = await get(`/v1/balance_transactions${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.error, q).toMatchObject({ code: 'validation_failed', param });
    }
    expect((await get('/v1/balance?merchants=x')).body.error).toMatchObject({ code: 'validation_failed', param: 'merchants' });
    expect((await get('/v1/balance/net_volume?days=14')).body.error).toMatchObject({ code: 'validation_failed', param: 'days' });
    expect(await rowCounts(h)).toEqual(before);
  });
});

describe('GET /v1/balance/net_volume', () => {
  it('gives gross, refunds and net per UTC day up to the chain day, every day present', async () => {
    const v = (await get('/v1/balance/net_volume?days=30')).body;
    expect(v).toMatchObject({ object: 'net_volume', days: 30, timezone: 'UTC', gross: '190.00', refunded: '21.00', net: '169.00' });
    expect(v.data).toHaveLength(30);
    expect(v.data.at(-1).day).toBe('2026-03-09'); // chain time T0 + 8 d
    expect(v.data.find((d: any) => d.day === '2026-03-01')).toEqual({ day: '2026-03-01', gross: '190.00', refunded: '0.00', net: '190.00', payments: 4, refunds: 0 });
    expect(v.data.find((d: any) => d.day === '2026-03-02')).toEqual({ day: '2026-03-02', gross: '0.00', refunded: '21.00', net: '-21.00', payments: 0, refunds: 2 });
    const week = (await get('/v1/balance/net_volume?days=7')).body;
    expect(week.data.map((d: any) => d.day)).toEqual(['2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09']);
    expect(week.gross).toBe('0.00');
  });
});
