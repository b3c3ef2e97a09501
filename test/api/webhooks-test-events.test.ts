/**
 * Test events of a chosen type: "Send test event" on an endpoint (POST /v1/webhooks/endpoints/{id}/test) and for
 * the platform (POST /v1/events/test, what `trisettle trigger` uses for types the devnet has no flow for). Every
 * type the service emits is accepted, an unknown one is refused with a 422 naming the field; the event detail
 * lists the deliveries of an event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/events/types.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let a: Awaited<ReturnType<Harness['platform']>>;

beforeAll(async () => {
  h = await createHarness();
  a = await h.platform();
});
afterAll(() => h.close());

const endpoint = async (events: string[]) =>
  (await h.request('POST', '/v1/webhooks/endpoints', { key: a.secretKey, body: { url: 'http://127.0.0.1:9/hook', subscribed_events: events } })).body;
/** Test events are bounded at 30 a minute per platform: the bound is moved out of the way between checks. */
const forget = () => h.db.updateTable('events').set({ created_at: new Date(Date.now() - 120_000) }).where('platform_id', '=', a.platformId).execute();

describe('send test event of a type', () => {
  it('sends test.ping without a body, and the type asked for with one: a sample object marked test', async () => {
    const ep = await endpoint(['*']);
    const ping = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/test`, { key: a.secretKey });
    expect(ping.status).toBe(201);
    expect(ping.body.event_type).toBe('test.ping');
    const typed = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/test`, { key: a.secretKey, body: { type: 'subscription.past_due' } });
    expect(typed.status).toBe(201);
    expect(typed.body).toMatchObject({ event_type: 'subscription.past_due', endpoint_id: ep.id, state: 'pending' });
    const event = await h.request('GET', `/v1/events/${typed.body.event_id}`, { key: a.secretKey });
    expect(event.body).toMatchObject({ type: 'subscription.past_due', data: { object: { object: 'subscription', state: 'past_due', test: true, id: expect.stringMatching(/^sub_test_/) } } });
    expect(event.body.deliveries).toEqual([expect.objectContaining({ id: typed.body.id, endpoint_id: ep.id, event_type: 'subscription.past_due' })]);
  });

  it('refuses a type the service does not send with a 422 naming type and the types it knows', async () => {
    const ep = await endpoint(['*']);
    for (const path of [`/v1/webhooks/endpoints/${ep.id}/test`, '/v1/events/test']) {
      const res = await h.request('POST', path, { key: a.secretKey, body: { type: 'order.shipped' } });
      expect(res.status, path).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'type', message: expect.stringContaining('order.confirmed') });
      expect(res.body.error.message).toContain('"order.shipped" is not an event type');
    }
  });

  it('emits a platform test event of every type the service emits, delivered to the endpoints subscribed to it', async () => {
    await forget();
    const confirmedOnly = await endpoint(['order.confirmed']);
    for (const [i, type] of EVENT_TYPES.entries()) {
      if (i % 25 === 24) await forget();
      const res = await h.request('POST', '/v1/events/test', { key: a.secretKey, body: { type } });
      expect(res.status, `${type}: ${res.text}`).toBe(201);
      expect(res.body).toMatchObject({ object: 'event', type, data: { object: { test: true } } });
      const detail = await h.request('GET', `/v1/events/${res.body.id}`, { key: a.secretKey });
      const to = detail.body.deliveries.map((d: { endpoint_id: string }) => d.endpoint_id);
      expect(to.includes(confirmedOnly.id), type).toBe(type === 'order.confirmed');
    }
    const listed = await h.request('GET', `/v1/events?limit=${EVENT_TYPES.length}`, { key: a.secretKey });
    expect(new Set(listed.body.data.map((e: { type: string }) => e.type))).toEqual(new Set(EVENT_TYPES));
  });

  it('counts test events of every type against the per-platform bound', async () => {
    await forget();
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await h.request('POST', '/v1/events/test', { key: a.secretKey, body: { type: 'merchant.created' } })).status);
    expect(statuses.slice(0, 30).every((s) => s === 201)).toBe(true);
    expect(statuses[30]).toBe(429);
  });
});
