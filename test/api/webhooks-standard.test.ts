import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../src/modules/events/service.js';
import { createWebhookDeliverer, type DelivererOptions } from '../../src/modules/webhooks/deliver.js';
import { verifySignature } from '../../src/modules/webhooks/sign.js';
import { manualClock, type Clock } from '../../src/lib/clock.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/** Issue 19: Standard Webhooks headers, the 5-day disable (moved clock), replay of a time range. */
let h: Harness;
const receivers: Receiver[] = [];
const FAST: DelivererOptions = { timeoutMs: 1_000, scheduleMs: [60_000] };

beforeAll(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await h.db.updateTable('webhook_deliveries').set({ state: 'failed', last_error: 'test cleanup' }).where('state', '=', 'pending').execute();
});
afterAll(() => h.close());

async function receiver(status = 200) {
  const r = await startReceiver({ status });
  receivers.push(r);
  return r;
}
async function endpoint(key: string, url: string, subscribed_events: string[] = ['*']) {
  const res = await h.request('POST', '/v1/webhooks/endpoints', { key, body: { url, subscribed_events } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}
const deliverer = (opts: DelivererOptions = {}, clock?: Clock) =>
  createWebhookDeliverer({ db: h.db, config: { env: 'devnet' }, logger: h.services.logger, secrets: h.services.webhookSecrets, clock }, { ...FAST, ...opts });
const emit = (platformId: string, id: string) => emitEvent(h.db, { platformId, type: 'order.confirmed', data: { object: { id, object: 'order' } } });

describe('Standard Webhooks headers', () => {
  it('every real delivery verifies with the standardwebhooks library as is, and X-Webhook-Signature still follows SPEC §6', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId, 'ord_std_1');
    await deliverer().runOnce();
    await r.waitFor(1);
    const got = r.received[0]!;
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(got.headers['webhook-timestamp']).toBe(got.headers['x-webhook-timestamp']);
    const verified = new Webhook(ep.secret).verify(got.rawBody, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    }) as { id: string; type: string };
    expect(verified).toMatchObject({ id: event.id, type: 'order.confirmed' });
    expect(verifySignature({ secret: ep.secret, header: String(got.headers['x-webhook-signature']), timestamp: String(got.headers['x-webhook-timestamp']), rawBody: got.rawBody })).toBe(true);
    // Another secret does not verify it.
    expect(() => new Webhook(`whsec_${'A'.repeat(32)}`).verify(got.rawBody, {
      'webhook-id': String(got.headers['webhook-id']), 'webhook-timestamp': String(got.headers['webhook-timestamp']), 'webhook-signature': String(got.headers['webhook-signature']),
    })).toThrow();

    // During a secret roll both signatures are sent, and the library accepts the delivery with either secret.
    const rolled = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/roll-secret`, { key: p.secretKey });
    await emit(p.platformId, 'ord_std_2');
    await deliverer().runOnce();
    await r.waitFor(2);
    const second = r.received[1]!;
    const headers = { 'webhook-id': String(second.headers['webhook-id']), 'webhook-timestamp': String(second.headers['webhook-timestamp']), 'webhook-signature': String(second.headers['webhook-signature']) };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [rolled.body.secret, ep.secret]) expect(() => new Webhook(secret).verify(second.rawBody, headers)).not.toThrow();
  });
});

describe('disabling an endpoint that keeps failing', () => {
  it('disables after 5 days without a success (moved clock), emits webhook_endpoint.disabled, stops sending; a success resets the run', async () => {
    const p = await h.platform();
    const bad = await receiver(500);
    const watcher = await receiver(200);
    const failing = await endpoint(p.secretKey, bad.url(), ['order.confirmed']);
    await endpoint(p.secretKey, watcher.url(), ['webhook_endpoint.disabled']);
    const clock = manualClock(new Date('2026-11-01T00:00:00Z'));
    const d = deliverer({}, clock);
    const row = () => h.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', failing.id).executeTakeFirstOrThrow();

    await emit(p.platformId, 'ord_f1');
    await d.runOnce();
    expect((await row()).failing_since?.toISOString()).toBe('2026-11-01T00:00:00.000Z');

    // A success in between ends the run: the 5 days count from the next failure.
    clock.set(new Date('2026-11-03T00:00:00Z'));
    bad.reply({ status: 200 });
    await emit(p.platformId, 'ord_f2');
    await d.runOnce();
    expect((await row()).failing_since).toBeNull();
    clock.set(new Date('2026-11-04T00:00:00Z'));
    await emit(p.platformId, 'ord_f3');
    await d.runOnce();
    expect((await row()).failing_since?.toISOString()).toBe('2026-11-04T00:00:00.000Z');

    clock.set(new Date('2026-11-08T23:59:59Z')); // 4 days 23:59:59 of failures: still enabled
    await emit(p.platformId, 'ord_f4');
    await d.runOnce();
    expect((await row()).disabled_at).toBeNull();
    expect((await h.request('GET', `/v1/webhooks/endpoints/${failing.id}`, { key: p.secretKey })).body.status).toBe('enabled');

    clock.set(new Date('2026-11-09T00:00:00Z')); // 5 days
    await emit(p.platformId, 'ord_f5');
    await d.runOnce();
    const disabled = await row();
    expect(disabled.disabled_at?.toISOString()).toBe('2026-11-09T00:00:00.000Z');
    expect(disabled.disabled_reason).toMatch(/failing without a success for 5 days/);
    const shown = await h.request('GET', `/v1/webhooks/endpoints/${failing.id}`, { key: p.secretKey });
    expect(shown.body).toMatchObject({ status: 'disabled', disabled_reason: expect.stringMatching(/5 days/) });

    const events = await h.request('GET', '/v1/events?type=webhook_endpoint.disabled', { key: p.secretKey });
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0].data.object).toMatchObject({ id: failing.id, status: 'disabled' });
    expect(events.body.data[0].data.object.secret).toBeUndefined();
    await d.runOnce();
    await watcher.waitFor(1);
    expect(JSON.parse(watcher.received[0]!.rawBody)).toMatchObject({ type: 'webhook_endpoint.disabled', data: { object: { id: failing.id } } });

    // Nothing more goes to it.
    const before = bad.received.length;
    await emit(p.platformId, 'ord_f6');
    await d.runOnce();
    expect(bad.received.length).toBe(before);
  });
});

describe('POST /v1/webhooks/endpoints/:id/replay', () => {
  it('re-delivers exactly the subscribed events of [since, until), including ones delivered before', async () => {
    const p = await h.platform();
    const other = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url(), ['order.confirmed']);
    const at = (iso: string) => new Date(iso);
    const ins = async (id: string, type: string, created: string, platformId = p.platformId) =>
      h.db.insertInto('events').values({ id, platform_id: platformId, type, data: JSON.stringify({ object: { id: `o_${id}` } }), created_at: at(created) }).execute();
    await ins('evt_r_before', 'order.confirmed', '2026-10-01T09:59:59.999Z');
    await ins('evt_r_1', 'order.confirmed', '2026-10-01T10:00:00.000Z');
    await ins('evt_r_2', 'order.confirmed', '2026-10-01T10:30:00.000Z');
    await ins('evt_r_other_type', 'refund.completed', '2026-10-01T10:31:00.000Z');
    await ins('evt_r_other_platform', 'order.confirmed', '2026-10-01T10:32:00.000Z', other.platformId);
    await ins('evt_r_until', 'order.confirmed', '2026-10-01T11:00:00.000Z');
    // evt_r_2 was delivered once already: it is sent again all the same.
    await h.db.insertInto('webhook_deliveries').values({ id: 'dlv_r_2', event_id: 'evt_r_2', endpoint_id: ep.id, platform_id: p.platformId, state: 'succeeded', attempts: 1, created_at: new Date(), event_created_at: at('2026-10-01T10:30:00.000Z') }).execute();

    const res = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/replay`, { key: p.secretKey, body: { since: '2026-10-01T10:00:00Z', until: '2026-10-01T11:00:00Z' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'webhook_replay', endpoint_id: ep.id, events: 2 });
    const d = deliverer();
    await d.runOnce();
    await r.waitFor(2);
    await d.runOnce();
    expect(r.received.map((x) => x.headers['webhook-id']).sort()).toEqual(['evt_r_1', 'evt_r_2']);
    expect((await h.db.selectFrom('webhook_deliveries').select(['state', 'attempts']).where('id', '=', 'dlv_r_2').executeTakeFirstOrThrow())).toEqual({ state: 'succeeded', attempts: 2 });

    // Bad input: 4xx and nothing scheduled.
    for (const body of [{ since: '2026-10-01T11:00:00Z', until: '2026-10-01T10:00:00Z' }, { since: 'yesterday', until: '2026-10-01T10:00:00Z' }, { since: '2026-10-01T10:00:00Z' }]) {
      const bad = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/replay`, { key: p.secretKey, body });
      expect(bad.status).toBe(422);
    }
    expect((await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/replay`, { key: other.secretKey, body: { since: '2026-10-01T10:00:00Z', until: '2026-10-01T11:00:00Z' } })).status).toBe(404);
    expect(await h.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', ep.id).where('state', '=', 'pending').execute()).toEqual([]);
  });
});
