import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { formatUnits } from '../../src/lib/money.js';
import { PAID_AMOUNT_SQL } from '../../src/modules/orders/repo.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';
import { createHarness, TEST_DB, type Harness } from '../helpers/harness.js';

/**
 * GET /v1/orders/summary from folded counts (migration 039): a trigger on orders appends each order's change to
 * order_count_deltas, the worker folds them into order_counts and the gross per day and minute, a read adds both.
 * Checked against the summary summed from the orders themselves (the statements the summary ran before 039) after
 * every kind of write (the API, the indexer's updates, a reorg's rewind, a delete), at the service's clock and at a
 * clock moved back, with writers and folders running at once, and on a database whose orders the trigger never saw.
 */
let h: Harness;
type P = { platformId: string; secretKey: string; template: string };
let A: P;
let B: P;
let seq = 0;

async function platformWithOrder(name: string): Promise<P> {
  const p = await h.platform({ name });
  const m = await merchant(h, p.secretKey);
  const o = await order(h, p.secretKey, m.external_id);
  return { platformId: p.platformId, secretKey: p.secretKey, template: o.id };
}

/** `n` more pending orders of the template's platform, written by SQL as a bulk writer would (the trigger sees each). */
async function clone(p: P, n: number, db = h.db) {
  const tag = `${++seq}`;
  await sql`insert into orders select (jsonb_populate_record(null::orders, to_jsonb(o) || jsonb_build_object(
      'id', 'ord_cnt' || ${tag} || '_' || g, 'order_no', 'cnt_' || ${tag} || '_' || g,
      'onchain_id', '0x' || md5('cnt' || ${tag} || '_' || g) || md5('x' || ${tag} || '_' || g),
      'state', 'pending_payment', 'confirmed_at', null))).*
    from orders o cross join generate_series(1, ${n}) g where o.id = ${p.template}`.execute(db);
}

const recount = async (p: P) => (await sql<{ total: number; pending: number; confirmed: number }>`
  select count(*)::int as total, (count(*) filter (where state = 'pending_payment'))::int as pending,
    (count(*) filter (where confirmed_at is not null))::int as confirmed from orders where platform_id = ${p.platformId}`.execute(h.db)).rows[0]!;
const summary = async (p: P) => {
  const res = await h.request('GET', '/v1/orders/summary', { key: p.secretKey });
  expect(res.status).toBe(200);
  return { total: res.body.total, pending: res.body.pending, confirmed: res.body.confirmed };
};
const DAY = 86_400_000;
/** The whole summary at `now`, summed from the orders themselves, as the summary did before migration 039. */
async function fromOrders(p: P, now: Date) {
  const since14 = new Date(now.getTime() - 13 * DAY);
  since14.setUTCHours(0, 0, 0, 0);
  const paid = sql.raw(PAID_AMOUNT_SQL);
  const gross = (await sql<{ g: string }>`select coalesce(sum(${paid}), 0)::text as g from orders
    where platform_id = ${p.platformId} and confirmed_at >= ${new Date(now.getTime() - DAY)}`.execute(h.db)).rows[0]!.g;
  const daily = new Map((await sql<{ day: string; gross: string; count: number }>`
    select to_char(date_trunc('day', confirmed_at at time zone 'UTC'), 'YYYY-MM-DD') as day, sum(${paid})::text as gross, count(*)::int as count
    from orders where platform_id = ${p.platformId} and confirmed_at >= ${since14} group by 1`.execute(h.db)).rows.map((r) => [r.day, r]));
  return {
    ...(await recount(p)),
    gross_24h: formatUnits(BigInt(gross)),
    gross_daily: Array.from({ length: 14 }, (_, i) => {
      const day = new Date(since14.getTime() + i * DAY).toISOString().slice(0, 10);
      const d = daily.get(day);
      return { day, gross: formatUnits(BigInt(d?.gross ?? '0')), count: d?.count ?? 0 };
    }),
  };
}
/** The summary (folded counts and deltas) equals the one summed from the orders, now and with the clock moved back. */
async function expectExact(p: P) {
  const now = new Date();
  expect(await h.services.orders.summary(p.platformId, now)).toEqual(await fromOrders(p, now));
  const back = new Date(now.getTime() - 5 * DAY - 17 * 60_000);
  expect(await h.services.orders.summary(p.platformId, back)).toEqual(await fromOrders(p, back));
}
const deltas = async () => Number((await sql<{ n: string }>`select count(*)::text as n from order_count_deltas`.execute(h.db)).rows[0]!.n);

/** Moves `n` orders of the platform from one state to another, as the indexer and the sweeper write them. */
const move = (p: P, n: number, from: string, set: ReturnType<typeof sql>, db = h.db) => sql`
  update orders set ${set} where id in (select id from orders where platform_id = ${p.platformId} and state = ${from} order by id limit ${n})`.execute(db);

beforeAll(async () => {
  h = await createHarness(fakeChain());
  A = await platformWithOrder('Counts A');
  B = await platformWithOrder('Counts B');
});
afterAll(async () => { await h?.close(); });

describe(`order counts (${TEST_DB})`, () => {
  it('follow inserts, confirmations, expiries, a reorg\'s rewind and deletes, for each platform, before and after a fold', async () => {
    await clone(A, 200);
    await clone(B, 50);
    // Confirmed over the last ~3 days (across UTC days, the 24 h edge and minutes kept), and 20 days ago.
    await move(A, 50, 'pending_payment', sql`state = 'confirmed', confirmed_at = now() - (('x' || substr(md5(id), 1, 6))::bit(24)::int % 4300) * interval '1 minute'`);
    await move(A, 10, 'pending_payment', sql`state = 'confirmed', confirmed_at = now() - interval '20 days' - (('x' || substr(md5(id), 1, 6))::bit(24)::int % 900) * interval '1 minute'`);
    await move(A, 30, 'pending_payment', sql`state = 'expired'`);
    await move(A, 10, 'confirmed', sql`state = 'pending_payment', confirmed_at = null`); // a reorg's rewind
    await sql`delete from orders where id in (select id from orders where platform_id = ${B.platformId} and id like 'ord_cnt%' order by id limit 5)`.execute(h.db);
    // A write that moves neither the state nor confirmed_at appends nothing.
    const before = await deltas();
    await sql`update orders set metadata = '{"k":"v"}' where platform_id = ${A.platformId}`.execute(h.db);
    expect(await deltas()).toBe(before);

    expect(await recount(A)).toEqual({ total: 201, pending: 121, confirmed: 50 });
    expect(await summary(A)).toEqual(await recount(A));
    expect(await summary(B)).toEqual({ total: 46, pending: 46, confirmed: 0 });
    await expectExact(A);
    const a = await fromOrders(A, new Date());
    expect(a.gross_24h).not.toBe('0');
    expect(a.gross_daily.filter((d) => d.count > 0).length).toBeGreaterThanOrEqual(3);
    expect(await h.services.orders.foldCounts()).toBeGreaterThan(0);
    expect(await deltas()).toBe(0);
    expect(await summary(A)).toEqual(await recount(A));
    expect(await summary(B)).toEqual(await recount(B));
    await expectExact(A);
    await expectExact(B);
    expect(await h.services.orders.foldCounts()).toBe(0);
    // A reorg moves a confirmed order to another block: its confirmed_at (and its gross) moves minute and day.
    await sql`update orders set confirmed_at = confirmed_at - interval '1 day 3 minutes' where id = (
      select id from orders where platform_id = ${A.platformId} and confirmed_at > now() - interval '1 day' order by id limit 1)`.execute(h.db);
    await expectExact(A);
    await h.services.orders.foldCounts();
    await expectExact(A);
    // After the fold, new writes are added to the folded row.
    await move(A, 1, 'pending_payment', sql`state = 'confirmed', confirmed_at = now()`);
    await clone(B, 3);
    expect(await summary(A)).toEqual({ total: 201, pending: 120, confirmed: 51 });
    expect(await summary(B)).toEqual(await recount(B));
    await expectExact(A);
  });

  it('gross_24h counts an order confirmed 1 ms inside the window and not one 1 ms before it, folded or not', async () => {
    const C = await platformWithOrder('Counts C');
    await clone(C, 3);
    const now = new Date(Date.now() - 30_000);
    const since = now.getTime() - DAY;
    const at = (ms: number) => new Date(ms).toISOString();
    for (const t of [since + 1, since - 1, now.getTime() - 60_000]) {
      await sql`update orders set state = 'confirmed', confirmed_at = ${at(t)}::timestamptz
        where id = (select id from orders where platform_id = ${C.platformId} and state = 'pending_payment' order by id limit 1)`.execute(h.db);
    }
    const expected = formatUnits(2n * 25_000_000n);
    expect((await h.services.orders.summary(C.platformId, now)).gross_24h).toBe(expected);
    expect(await h.services.orders.summary(C.platformId, now)).toEqual(await fromOrders(C, now));
    await h.services.orders.foldCounts();
    expect((await h.services.orders.summary(C.platformId, now)).gross_24h).toBe(expected);
    expect(await h.services.orders.summary(C.platformId, now)).toEqual(await fromOrders(C, now));
  });

  it('stay exact while order writers and folders run at once', async () => {
    let writing = true;
    const writer = async (p: P, rounds: number) => {
      for (let i = 0; i < rounds; i++) {
        await h.db.transaction().execute(async (tx) => {
          await clone(p, 5, tx);
          await move(p, 2, 'pending_payment', sql`state = 'confirmed', confirmed_at = now()`, tx);
        });
        await move(p, 1, 'pending_payment', sql`state = 'expired'`);
      }
    };
    let folded = 0;
    const folder = async () => { while (writing) folded += await h.services.orders.foldCounts(7); };
    const folders = [folder(), folder()];
    await Promise.all([writer(A, 25), writer(A, 25), writer(B, 25), writer(B, 25)]);
    writing = false;
    await Promise.all(folders);
    expect(folded).toBeGreaterThan(0);
    await expectExact(A);
    await expectExact(B);
    await h.services.orders.foldCounts();
    await expectExact(A);
    await expectExact(B);
  });

  it('migration 039 counts the orders written before it', async () => {
    const expected = [await recount(A), await recount(B)];
    // The database as it was before 039, with these orders in it.
    await sql`drop trigger orders_count_insert on orders; drop trigger orders_count_update on orders; drop trigger orders_count_delete on orders;
      drop function orders_count_delta(); drop table order_count_deltas; drop table order_counts; drop table order_gross_days; drop table order_gross_minutes;
      delete from schema_migrations where name like '039%'`.execute(h.db);
    expect(await migrate(h.db)).toEqual(['039_order_counts.sql']);
    expect(await deltas()).toBe(0);
    expect([await summary(A), await summary(B)]).toEqual(expected);
    await expectExact(A);
    await expectExact(B);
    await clone(A, 2);
    expect(await summary(A)).toEqual({ ...expected[0], total: expected[0]!.total + 2, pending: expected[0]!.pending + 2 });
  });
});
