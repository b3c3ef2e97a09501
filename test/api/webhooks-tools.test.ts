import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/modules/webhooks/deliver.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let h: Harness;
let a: Awaited<ReturnType<Harness['platform']>>;
let b: Awaited<ReturnType<Harness['platform']>>;
let rx: Receiver;

beforeAll(async () => {
  h = await createHarness();
  a = await h.platform();
  b = await h.platform({ name: 'Other Platform' });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
  await h.close();
});

const deliverer = () => createWebhookDeliverer({ db: h.db, config: { env: 'devnet' }, logger: h.services.logger, secrets: h.services.webhookSecrets },
  { timeoutMs: 1_000, scheduleMs: [10, 10, 10] });
const endpoint = async (body: Record<string, unknown> = {}) =>
  (await h.request('POST', '/v1/webhooks/endpoints', { key: a.secretKey, body: { url: rx.url(), subscribed_events: ['*'], ...body } })).body;

describe('POST /v1/webhooks/endpoints/{id} (update)', () => {
  it('changes the URL, events and description, and clears the description with null', async () => {
    const ep = await endpoint({ description: 'first' });
    const res = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}`, { key: a.secretKey, body: { url: rx.url('/v2'), subscribed_events: ['order.confirmed'], description: 'second' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ep.id, url: rx.url('/v2'), subscribed_events: ['order.confirmed'], description: 'second', status: 'enabled' });
    expect(res.body).not.toHaveProperty('secret');
    const cleared = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}`, { cookie: a.cookie, headers: { origin: 'http://localhost:3000' }, body: { description: null } });
    expect(cleared.body.description).toBeNull();
  });

  it('refuses a URL the SSRF policy refuses, an empty update and unknown fields, changing nothing', async () => {
    const ep = await endpoint();
    for (const body of [{ url: 'http://user:pw@127.0.0.1:9/x' }, {}, { secret: 'whsec_x' }, { subscribed_events: [] }]) {
      const res = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}`, { key: a.secretKey, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await h.request('GET', `/v1/webhooks/endpoints/${ep.id}`, { key: a.secretKey })).body.url).toBe(ep.url);
  });

  it("answers 404 for another platform's endpoint and changes nothing", async () => {
    const ep = await endpoint();
    const res = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}`, { key: b.secretKey, body: { description: 'stolen' } });
    expect(res.status).toBe(404);
    for (const action of ['pause', 'resume', 'test']) {
      expect((await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/${action}`, { key: b.secretKey })).status).toBe(404);
    }
    const mine = await h.request('GET', `/v1/webhooks/endpoints/${ep.id}`, { key: a.secretKey });
    expect(mine.body).toMatchObject({ description: null, status: 'enabled' });
  });
});

describe('pause and resume', () => {
  it('holds deliveries while paused and sends them once resumed', async () => {
    const ep = await endpoint();
    const paused = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/pause`, { key: a.secretKey });
    expect(paused.body).toMatchObject({ status: 'paused', paused_at: expect.any(String) });
    expect((await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/pause`, { key: a.secretKey })).body.status).toBe('paused');
    const ping = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/test`, { key: a.secretKey });
    expect(ping.status).toBe(201);
    const before = rx.received.length;
    const d = deliverer();
    expect(await d.runOnce()).toBe(0);
    expect(rx.received.length).toBe(before);
    expect((await h.request('GET', `/v1/webhooks/deliveries/${ping.body.id}`, { key: a.secretKey })).body).toMatchObject({ state: 'pending', attempt_history: [] });

    const resumed = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/resume`, { key: a.secretKey });
    expect(resumed.body).toMatchObject({ status: 'enabled', paused_at: null });
    expect(await d.runOnce()).toBe(1);
    await d.stop();
    expect(rx.received.length).toBe(before + 1);
  });

  it('refuses to pause or resume a disabled endpoint (409)', async () => {
    const ep = await endpoint();
    await h.db.updateTable('webhook_endpoints').set({ disabled_at: new Date(), disabled_reason: 'endpoint answered 410 Gone' }).where('id', '=', ep.id).execute();
    for (const action of ['pause', 'resume', 'test']) {
      const res = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/${action}`, { key: a.secretKey });
      expect(res.status, action).toBe(409);
      expect(res.body.error.code).toBe('invalid_state');
    }
  });
});

describe('test events and the delivery inspector', () => {
  it('sends a signed test.ping to that endpoint only and shows the attempt as sent and answered', async () => {
    const ep = await endpoint();
    const other = await endpoint();
    rx.reply({ status: 500, body: 'x'.repeat(5000), headers: { 'X-Trace': 'abc' } });
    const ping = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/test`, { key: a.secretKey });
    expect(ping.status).toBe(201);
    expect(ping.body).toMatchObject({ object: 'webhook_delivery', endpoint_id: ep.id, event_type: 'test.ping', state: 'pending' });
    expect(await h.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', other.id).execute()).toEqual([]);

    const n = rx.received.length;
    const d = deliverer();
    await d.runOnce();
    await rx.waitFor(n + 1);
    const got = rx.received[n]!;
    expect(got.headers['webhook-id']).toBe(JSON.parse(got.rawBody).id);

    const detail = await h.request('GET', `/v1/webhooks/deliveries/${ping.body.id}`, { key: a.secretKey });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: ping.body.id, status: 'pending', attempts: 1, next_attempt_at: expect.any(String) });
    const [attempt] = detail.body.attempt_history;
    expect(attempt.request.url).toBe(ep.url);
    expect(attempt.request.headers['webhook-signature']).toMatch(/^v1,/);
    expect(attempt.request.headers['X-Webhook-Signature']).toEqual(expect.any(String));
    expect(attempt.request.body).toBe(got.rawBody);
    expect(attempt.response).toMatchObject({ status: 500, headers: { 'x-trace': 'abc' } });
    expect(attempt.response.body).toBe('x'.repeat(4096));
    expect(attempt.error).toBe('HTTP 500');
    expect(attempt.duration_ms).toEqual(expect.any(Number));
  });

  it('records a success with its answer (group commit path)', async () => {
    const own = await startReceiver({ status: 204, headers: { 'X-Ok': '1' } });
    const ep = await endpoint({ url: own.url() });
    const ping = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/test`, { key: a.secretKey });
    const d = deliverer();
    await d.runOnce();
    await d.stop();
    await own.close();
    const detail = (await h.request('GET', `/v1/webhooks/deliveries/${ping.body.id}`, { key: a.secretKey })).body;
    expect(detail).toMatchObject({ status: 'succeeded', next_attempt_at: null });
    expect(detail.attempt_history[0].response).toMatchObject({ status: 204, headers: { 'x-ok': '1' }, body: '' });
  });

  it("hides another platform's delivery (404)", async () => {
    const ep = await endpoint();
    const ping = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/test`, { key: a.secretKey });
    expect((await h.request('GET', `/v1/webhooks/deliveries/${ping.body.id}`, { key: b.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/v1/webhooks/deliveries/${ping.body.id}`, {})).status).toBe(401);
  });

  it('bounds test events per platform (429 past 30 a minute)', async () => {
    const ep = await endpoint();
    const already = Number((await h.db.selectFrom('events').select((e) => e.fn.countAll<string>().as('n')).where('platform_id', '=', a.platformId).where('type', '=', 'test.ping').executeTakeFirstOrThrow()).n);
    const statuses: number[] = [];
    for (let i = already; i < 31; i++) statuses.push((await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/test`, { key: a.secretKey })).status);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 201)).toBe(true);
  });
});

describe('GET /v1/events filters', () => {
  it('filters by exact type, by prefix and by delivery outcome', async () => {
    const prefix = await h.request('GET', '/v1/events?type=test.*&limit=100', { key: a.secretKey });
    expect(prefix.body.data.length).toBeGreaterThan(0);
    expect(prefix.body.data.every((e: { type: string }) => e.type === 'test.ping')).toBe(true);
    expect((await h.request('GET', '/v1/events?type=order.*', { key: a.secretKey })).body.data).toEqual([]);
    const delivered = await h.request('GET', '/v1/events?delivery_status=delivered&limit=100', { key: a.secretKey });
    const pending = await h.request('GET', '/v1/events?delivery_status=pending&limit=100', { key: a.secretKey });
    expect(delivered.body.data.length).toBeGreaterThan(0);
    expect(pending.body.data.length).toBeGreaterThan(0);
    const ids = new Set(delivered.body.data.map((e: { id: string }) => e.id));
    expect(pending.body.data.some((e: { id: string }) => ids.has(e.id))).toBe(false);
    expect((await h.request('GET', '/v1/events?delivery_status=delivered', { key: b.secretKey })).body.data).toEqual([]);
    for (const q of ['type=%25', 'type=order.*.*', 'delivery_status=done']) expect((await h.request('GET', `/v1/events?${q}`, { key: a.secretKey })).status, q).toBe(422);
  });
});
