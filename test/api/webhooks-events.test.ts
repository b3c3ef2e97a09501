import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent, EVENT_TYPES } from '../../src/modules/events/service.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let a: Awaited<ReturnType<Harness['platform']>>;
let b: Awaited<ReturnType<Harness['platform']>>;
const ids: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  a = await h.platform();
  b = await h.platform();
  const types = ['order.confirmed', 'order.failed', 'order.confirmed', 'refund.completed', 'order.confirmed'] as const;
  for (const [i, type] of types.entries()) {
    ids.push((await emitEvent(h.db, { platformId: a.platformId, type, data: { object: { id: `ord_${i}`, metadata: { i } } } })).id);
    await new Promise((r) => setTimeout(r, 3)); // distinct created_at milliseconds, so "newest first" is exact
  }
  await emitEvent(h.db, { platformId: b.platformId, type: 'order.confirmed', data: { object: { id: 'ord_b' } } });
});
afterAll(() => h.close());

describe('GET /v1/events', () => {
  it("lists the platform's events newest first, in the webhook body's shape", async () => {
    const res = await h.request('GET', '/v1/events', { key: a.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
    expect(res.body.data[0]).toEqual({
      id: ids[4], object: 'event', type: 'order.confirmed', created_at: expect.any(String),
      data: { object: { id: 'ord_4', metadata: { i: 4 } } },
    });
  });

  it('filters by type and pages with a cursor', async () => {
    const p1 = await h.request('GET', '/v1/events?type=order.confirmed&limit=2', { key: a.secretKey });
    expect(p1.body.data.map((e: { id: string }) => e.id)).toEqual([ids[4], ids[2]]);
    expect(p1.body.has_more).toBe(true);
    const p2 = await h.request('GET', `/v1/events?type=order.confirmed&limit=2&cursor=${p1.body.next_cursor}`, { cookie: a.cookie });
    expect(p2.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expect(p2.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('refuses an unknown type, an unknown parameter and a bad limit with 422', async () => {
    for (const q of ['type=order.paid', 'kind=x', 'limit=0', 'limit=abc']) {
      const res = await h.request('GET', `/v1/events?${q}`, { key: a.secretKey });
      expect(res.status, q).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('needs a secret key or a session', async () => {
    expect((await h.request('GET', '/v1/events')).status).toBe(401);
    expect((await h.request('GET', '/v1/events', { key: a.publishableKey })).status).toBe(403);
  });
});

describe('GET /v1/events/:id', () => {
  it('returns one event', async () => {
    const res = await h.request('GET', `/v1/events/${ids[1]}`, { key: a.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ids[1], object: 'event', type: 'order.failed', data: { object: { id: 'ord_1' } } });
  });

  it("answers 404 for another platform's event and for unknown ids", async () => {
    const res = await h.request('GET', `/v1/events/${ids[0]}`, { key: b.secretKey });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await h.request('GET', '/v1/events/evt_unknown', { key: a.secretKey })).status).toBe(404);
    const listed = await h.request('GET', '/v1/events?limit=100', { key: b.secretKey });
    expect(listed.body.data).toHaveLength(1);
  });
});

describe('emitEvent', () => {
  it('refuses an event type outside the list (a typo in a caller is a bug, not a silent event)', async () => {
    const before = await h.count('events');
    await expect(emitEvent(h.db, { platformId: a.platformId, type: 'order.paid' as never, data: { object: {} } })).rejects.toThrow(/unknown event type/);
    expect(await h.count('events')).toBe(before);
  });

  it('exports the event type list', () => {
    expect(EVENT_TYPES).toEqual([
      'order.confirmed', 'order.failed', 'order.expired', 'order.authorized', 'order.voided', 'order.underpaid', 'order.overpaid', 'payment.returned',
      'refund.completed', 'refund.failed',
      'checkout.session.completed', 'checkout.session.expired', 'subscription.created', 'subscription.activated', 'subscription.past_due',
      'subscription.canceled', 'merchant.created', 'settlement.completed',
      'webhook_endpoint.disabled',
    ]);
  });
});
