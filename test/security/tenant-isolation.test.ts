import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';
import { apiRoutes, fill, isAdmin, isPublic } from './routes.js';
import { rowCounts } from './tables.js';

/**
 * Tenant isolation, generated over the app's route list: platform A owns one of every resource; every
 * tenant-scoped route with a path parameter is called with platform B's secret key and B's dashboard
 * session on A's ids, and must answer 404 not_found (never 403, never A's data) and change nothing.
 * Every list route called by B must not mention any of A's ids.
 */
let h: Harness;
let A: Awaited<ReturnType<Harness['platform']>>;
let B: Awaited<ReturnType<Harness['platform']>>;
const a: Record<string, string> = {};

beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness({ chains: chain.chains, config: chain.config });
  A = await h.platform();
  B = await h.platform();
  const ep = await h.request('POST', '/v1/webhooks/endpoints', { key: A.secretKey, body: { url: 'http://127.0.0.1:9/a', subscribed_events: ['*'] } });
  a.endpoint = ep.body.id;
  const m = await merchant(h, A.secretKey, { external_id: 'shared_ext_id' });
  a.merchant = m.id;
  const inv = await h.request('POST', '/v1/merchants/invitations', { key: A.secretKey, body: { external_id: 'inv_ext', suggested_name: 'Invited', chain_id: 84532, reserve_bps: 1000, expires_in_seconds: 3600 } });
  expect(inv.status).toBe(201);
  a.invitation = inv.body.id;
  const o = await order(h, A.secretKey, m.external_id);
  a.order = o.id;
  // Paid the way the indexer marks it, so a refund can exist.
  await h.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('orders').selectAll().where('id', '=', o.id).executeTakeFirstOrThrow();
    await h.services.orders.transition(tx, row, 'paid', {
      paid_by: '0x976EA74026E726554dB657fA54763abd0C3a0aa9', paid_at: new Date(), tx_hash: `0x${'ab'.repeat(32)}`, block_number: 1n, confirmed_at: new Date(), reserve_remaining: row.reserve_hold,
    }, 'order.confirmed');
  });
  const r = await h.request('POST', '/v1/refunds', { key: A.secretKey, body: { order_id: o.id, amount: '1.00' } });
  expect(r.status).toBe(201);
  a.refund = r.body.id;
  a.event = (await h.db.selectFrom('events').select('id').where('platform_id', '=', A.platformId).executeTakeFirstOrThrow()).id;
  a.delivery = (await h.db.selectFrom('webhook_deliveries').select('id').where('platform_id', '=', A.platformId).executeTakeFirstOrThrow()).id;
  a.key = (await h.db.selectFrom('api_keys').select('id').where('platform_id', '=', A.platformId).where('kind', '=', 'secret').executeTakeFirstOrThrow()).id;
  a.settlement = 'stl_tenantisolation000001';
  await sql`insert into settlements (id, chain_id, onchain_id, state, order_count, total) values (${a.settlement}, 84532, ${'0x' + '01'.repeat(32)}, 'confirmed', 1, 1000)`.execute(h.db);
  const sub = await h.request('POST', '/v1/subscriptions', { key: A.secretKey, body: { merchant_id: m.external_id, chain_id: 84532, token: 'USDC', amount: '5.00', interval: 'month' } });
  expect(sub.status).toBe(201);
  a.subscription = sub.body.id;
  await h.request('GET', '/v1/orders/ord_doesnotexist0000000000', { key: A.secretKey }); // a failed request, logged with its bodies
  const logs = await h.request('GET', '/v1/developers/request_logs?status=4xx', { key: A.secretKey });
  a.request = logs.body.data[0].request_id;
  await sql`insert into settlement_items (settlement_id, order_id, platform_id, amount, state) values (${a.settlement}, ${a.order}, ${A.platformId}, 1000, 'released')`.execute(h.db);
}, 60_000);
afterAll(() => h?.close());

/** Which of A's resources a path parameter of a route names. A new route must be added here. */
function idFor(path: string): string | undefined {
  const table: [RegExp, string][] = [
    [/^\/v1\/merchants\/\{id\}/, 'merchant'],
    [/^\/v1\/merchants\/invitations\/\{id\}/, 'invitation'],
    [/^\/v1\/orders\/\{id\}/, 'order'],
    [/^\/v1\/refunds\/\{id\}/, 'refund'],
    [/^\/v1\/settlements\/\{id\}/, 'settlement'],
    [/^\/v1\/events\/\{id\}/, 'event'],
    [/^\/v1\/webhooks\/endpoints\/\{id\}/, 'endpoint'],
    [/^\/v1\/webhooks\/deliveries\/\{id\}/, 'delivery'],
    [/^\/v1\/developers\/keys\/\{id\}/, 'key'],
    [/^\/v1\/subscriptions\/\{id\}/, 'subscription'],
    [/^\/v1\/developers\/request_logs\/\{request_id\}/, 'request'],
  ];
  const hit = table.find(([re]) => re.test(path));
  return hit ? a[hit[1]] : undefined;
}

const scoped = () => apiRoutes(h.app).filter((r) => r.pathParams.length > 0 && !isPublic(r) && !isAdmin(r));

describe("another platform's ids", () => {
  it('has a resource of A for every tenant-scoped route with a path parameter', () => {
    const routes = scoped();
    expect(routes.length).toBeGreaterThanOrEqual(10);
    expect(routes.filter((r) => !idFor(r.path)).map((r) => r.key), 'routes without a fixture').toEqual([]);
  });

  it("answers 404 not_found to B's secret key and B's session on every such route, and changes nothing of A's", async () => {
    const before = await rowCounts(h);
    const snapshot = async () => Promise.all(['order', 'refund', 'merchant', 'endpoint', 'event', 'settlement'].map(async (k) =>
      (await h.request('GET', `/v1/${{ order: 'orders', refund: 'refunds', merchant: 'merchants', endpoint: 'webhooks/endpoints', event: 'events', settlement: 'settlements' }[k]}/${a[k]}`, { key: A.secretKey })).text));
    const viewBefore = await snapshot();
    for (const route of scoped()) {
      const path = fill(route.path, { id: idFor(route.path)!, request_id: idFor(route.path)! });
      // A body the schema accepts where the route needs one (replay), so that ownership is what answers.
      const valid = route.key.endsWith('/replay') ? { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' }
        : route.key === 'POST /v1/webhooks/endpoints/{id}' ? { description: 'B was here' }
        : route.key.endsWith('/deposit_address') ? { refund_address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' }
        : route.key.endsWith('/relay') ? { from: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', valid_after: '0', valid_before: '1', nonce: `0x${'00'.repeat(32)}`, signature: `0x${'11'.repeat(65)}` } : {};
      const body = route.body ? { raw: JSON.stringify(valid) } : {};
      for (const [who, auth] of [['B secret key', { key: B.secretKey }], ['B session', { cookie: B.cookie, headers: { origin: 'http://localhost:3000' } }]] as const) {
        const res = await h.request(route.method, path, { ...auth, ...body });
        expect(res.status, `${route.key} as ${who}: ${res.text}`).toBe(404);
        expect(res.body.error.code).toBe('not_found');
        for (const id of Object.values(a)) expect(res.text, `${route.key} leaks ${id}`).not.toContain(id);
      }
    }
    expect(await rowCounts(h)).toEqual(before);
    expect(await snapshot()).toEqual(viewBefore);
    expect((await h.request('GET', '/v1/me', { key: A.secretKey })).status).toBe(200); // A's key was not revoked
  });

  it('looks merchants up by external_id within the caller only', async () => {
    const res = await h.request('GET', '/v1/merchants/shared_ext_id', { key: B.secretKey });
    expect(res.status).toBe(404);
    await merchant(h, B.secretKey, { external_id: 'shared_ext_id' });
    const own = await h.request('GET', '/v1/merchants/shared_ext_id', { key: B.secretKey });
    expect(own.status).toBe(200);
    expect(own.body.id).not.toBe(a.merchant);
  });

  it("never lists A's resources to B, on any list route", async () => {
    // The devnet test clock is no list (and this harness's chain does not answer): test/api/developer-tools.test.ts.
    // The events stream stays open (server-sent events): its platform scoping is test/api/events-stream.test.ts's.
    const lists = apiRoutes(h.app).filter((r) => r.method === 'GET' && r.pathParams.length === 0 && !isPublic(r) && !isAdmin(r) && !r.path.startsWith('/v1/test_helpers/') && r.path !== '/v1/events/stream');
    expect(lists.length).toBeGreaterThanOrEqual(8);
    for (const route of lists) {
      const res = await h.request('GET', route.path, { key: B.secretKey });
      expect(res.status, `${route.key}: ${res.text}`).toBe(200);
      for (const id of Object.values(a)) expect(res.text, `${route.key} lists A's ${id}`).not.toContain(id);
    }
  });

  it("refuses A's ids inside B's request bodies too (refund of A's order, order for A's merchant)", async () => {
    const before = await rowCounts(h);
    const refund = await h.request('POST', '/v1/refunds', { key: B.secretKey, body: { order_id: a.order } });
    expect(refund.status).toBe(404);
    const o = await h.request('POST', '/v1/orders', { key: B.secretKey, body: { merchant_id: a.merchant, order_no: 'x', chain_id: 84532, token: 'USDC', amount: '1.00' } });
    expect(o.status).toBe(404);
    expect(await rowCounts(h)).toEqual(before);
  });
});
