/**
 * Keyset pages never skip or repeat a row created in the same millisecond as a page's last one (migration 025:
 * every listed table's created_at holds milliseconds, which is what a cursor carries). Rows are made through the
 * API in a burst (or in one statement where the API has no door for them), then put inside one millisecond,
 * microseconds apart in an order unrelated to their ids, as a burst on a fast instance writes them. Each list is
 * walked at limit 1 and 2 and must give exactly the rows of one big page, in (created_at desc, id desc) order.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeChain, merchant, order } from '../helpers/factories.js';
import { ADMIN_TOKEN, BASE, createHarness, type Harness, type ReqOpts, type Res } from '../helpers/harness.js';
import { pay } from './balance-fixtures.js';

const N = 5;
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let auth: ReqOpts;
beforeAll(async () => {
  h = await createHarness(fakeChain());
  p = await h.platform();
  auth = { key: p.secretKey };
}, 60_000);
afterAll(() => h?.close());

/**
 * The rows' created_at: one millisecond's start plus 7, 14, … microseconds, the later microseconds going to the
 * smaller ids (so neither order helps the other). Within the millisecond, as stored before migration 025.
 */
async function intoOneMillisecond(table: string, ids: string[]) {
  const byIdDesc = [...ids].sort().reverse();
  const r = await sql`update ${sql.table(table)} set created_at = date_trunc('milliseconds', now()) + interval '7 microseconds' * array_position(${byIdDesc}::text[], id)
    where id = any(${byIdDesc}::text[])`.execute(h.db);
  expect(Number(r.numAffectedRows)).toBe(ids.length);
}

type Row = { id: string; created_at: string };
const withLimit = (path: string, limit: number, cursor: string | null) =>
  `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

async function walk(path: string, opts: ReqOpts, limit: number): Promise<Row[]> {
  const seen: Row[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 200; page++) {
    const res: Res = await h.request('GET', withLimit(path, limit, cursor), opts);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    seen.push(...(res.body.data as Row[]).map((r) => ({ id: r.id, created_at: r.created_at })));
    if (!res.body.has_more) return seen;
    cursor = res.body.next_cursor;
  }
  throw new Error(`${path}: no last page after 200 pages`);
}

/** Every row once, newest first, ties by id descending; paging at 1 and 2 gives the same rows as one page. */
async function expectPagesComplete(path: string, opts: ReqOpts, made: string[]) {
  const all = await walk(path, opts, 100);
  const ids = all.map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(expect.arrayContaining(made));
  // Soft: each list and limit reports its own failure.
  for (const limit of [1, 2]) expect.soft((await walk(path, opts, limit)).map((r) => r.id), `${path} at limit=${limit}`).toEqual(ids);
  const sorted = [...all].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
  expect.soft(ids, `${path}: (created_at desc, id desc)`).toEqual(sorted.map((r) => r.id));
  // The burst shares one millisecond as the API shows it: ties broken by id.
  expect(new Set(all.filter((r) => made.includes(r.id)).map((r) => r.created_at)).size).toBe(1);
}

const burst = <T>(make: (i: number) => Promise<T>) => Promise.all(Array.from({ length: N }, (_, i) => make(i)));

describe('keyset pages over rows created in one millisecond', () => {
  let merchants: { id: string; external_id: string }[];
  let endpointIds: string[];

  it('merchants, and their merchant.created events and deliveries', async () => {
    const ep = await h.request('POST', '/v1/webhooks/endpoints', { ...auth, body: { url: 'http://127.0.0.1:9/hook', subscribed_events: ['*'] } });
    expect(ep.status).toBe(201);
    endpointIds = [ep.body.id];
    merchants = await burst(() => merchant(h, p.secretKey));
    await intoOneMillisecond('merchants', merchants.map((m) => m.id));
    await expectPagesComplete('/v1/merchants', auth, merchants.map((m) => m.id));

    const events = (await h.db.selectFrom('events').select('id').where('platform_id', '=', p.platformId).where('type', '=', 'merchant.created').execute()).map((e) => e.id);
    expect(events).toHaveLength(N);
    await intoOneMillisecond('events', events);
    await expectPagesComplete('/v1/events', auth, events);
    await expectPagesComplete('/v1/events?type=merchant.created', auth, events);

    const deliveries = (await h.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', ep.body.id).execute()).map((d) => d.id);
    expect(deliveries).toHaveLength(N);
    await intoOneMillisecond('webhook_deliveries', deliveries);
    await expectPagesComplete(`/v1/webhooks/endpoints/${ep.body.id}/deliveries`, auth, deliveries);
  });

  it('orders, filtered and not', async () => {
    const orders = await burst(() => order(h, p.secretKey, merchants[0]!.external_id));
    await intoOneMillisecond('orders', orders.map((o) => o.id));
    await expectPagesComplete('/v1/orders', auth, orders.map((o) => o.id));
    await expectPagesComplete('/v1/orders?state=pending_payment', auth, orders.map((o) => o.id));
    await expectPagesComplete(`/v1/orders?merchant_id=${merchants[0]!.external_id}`, auth, orders.map((o) => o.id));
  });

  it('refunds', async () => {
    const o = await order(h, p.secretKey, merchants[1]!.external_id, { amount: '50.00' });
    await pay(h, o, new Date('2026-05-01T00:00:00Z'));
    const refunds: string[] = [];
    for (let i = 0; i < N; i++) {
      const r = await h.request('POST', '/v1/refunds', { ...auth, body: { order_id: o.id, amount: '1.00' } });
      expect(r.status, r.text).toBe(201);
      refunds.push(r.body.id);
    }
    await intoOneMillisecond('refunds', refunds);
    await expectPagesComplete('/v1/refunds', auth, refunds);
    await expectPagesComplete(`/v1/refunds?order_id=${o.id}`, auth, refunds);
  });

  it('webhook endpoints, API keys and the key audit log', async () => {
    for (let i = 1; i < N; i++) {
      const ep = await h.request('POST', '/v1/webhooks/endpoints', { ...auth, body: { url: `http://127.0.0.1:9/hook${i}`, subscribed_events: ['order.failed'] } });
      expect(ep.status).toBe(201);
      endpointIds.push(ep.body.id);
    }
    await intoOneMillisecond('webhook_endpoints', endpointIds);
    await expectPagesComplete('/v1/webhooks/endpoints', auth, endpointIds);

    const session = { cookie: p.cookie, headers: { origin: BASE } };
    const keys = await burst(async () => {
      const k = await h.request('POST', '/v1/developers/keys', session);
      expect(k.status, k.text).toBe(201);
      return k.body.id as string;
    });
    await intoOneMillisecond('api_keys', keys);
    await expectPagesComplete('/v1/developers/keys', auth, keys);
    const audit = (await h.db.selectFrom('key_audit_log').select('id').where('key_id', 'in', keys).execute()).map((a) => a.id);
    expect(audit).toHaveLength(N);
    await intoOneMillisecond('key_audit_log', audit);
    await expectPagesComplete('/v1/developers/audit_log', auth, audit);
  });

  it('settlements and unmatched transfers, each written in one statement', async () => {
    const o = await order(h, p.secretKey, merchants[2]!.external_id);
    const ids = Array.from({ length: N }, (_, i) => `stl_same_ms_${i}`);
    await sql`insert into settlements (id, chain_id, onchain_id, state, order_count)
      select id, 84532, '0x' || lpad(to_hex(n), 64, 'e'), 'submitted', 1 from unnest(${ids}::text[]) with ordinality as u(id, n)`.execute(h.db);
    await sql`insert into settlement_items (settlement_id, order_id, platform_id, amount, state)
      select id, ${o.id}, ${p.platformId}, 1, 'included' from unnest(${ids}::text[]) as u(id)`.execute(h.db);
    await intoOneMillisecond('settlements', ids);
    await expectPagesComplete('/v1/settlements', auth, ids);

    const transfers = Array.from({ length: N }, (_, i) => `utr_same_ms_${i}`);
    await sql`insert into unmatched_transfers (id, chain_id, token, from_address, value, tx_hash, block_number, block_time, log_index, event_key)
      select id, 84532, ${'0x' + '11'.repeat(20)}, ${'0x' + '22'.repeat(20)}, 1000, '0x' || lpad(to_hex(n), 64, '0'), 1, now(), n, 'Transfer:' || id
      from unnest(${transfers}::text[]) with ordinality as u(id, n)`.execute(h.db);
    await intoOneMillisecond('unmatched_transfers', transfers);
    await expectPagesComplete('/_/unmatched-transfers', { key: ADMIN_TOKEN }, transfers);
  });
});
