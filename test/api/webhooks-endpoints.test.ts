import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let a: Awaited<ReturnType<Harness['platform']>>;
let b: Awaited<ReturnType<Harness['platform']>>;
const URL_A = 'http://127.0.0.1:9/hook';

beforeAll(async () => {
  h = await createHarness();
  a = await h.platform();
  b = await h.platform({ name: 'Other Platform' });
});
afterAll(() => h.close());

const create = (key: string, body: unknown, idem?: string) => h.request('POST', '/v1/webhooks/endpoints', { key, body, idem });

describe('POST /v1/webhooks/endpoints', () => {
  it('registers an endpoint and shows its whsec_ secret once', async () => {
    const res = await create(a.secretKey, { url: URL_A, subscribed_events: ['order.confirmed', 'refund.completed'], description: 'orders' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'webhook_endpoint', url: URL_A, description: 'orders', subscribed_events: ['order.confirmed', 'refund.completed'],
      status: 'enabled', disabled_reason: null, previous_secret_expires_at: null,
    });
    expect(res.body.id).toMatch(/^we_[0-9A-Za-z]{20}$/);
    expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);

    const list = await h.request('GET', '/v1/webhooks/endpoints', { key: a.secretKey });
    expect(list.status).toBe(200);
    const listed = list.body.data.find((e: { id: string }) => e.id === res.body.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('secret');
    const one = await h.request('GET', `/v1/webhooks/endpoints/${res.body.id}`, { key: a.secretKey });
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('secret');
  });

  it('accepts ["*"] for every event type and a dashboard session', async () => {
    const res = await h.request('POST', '/v1/webhooks/endpoints', { cookie: a.cookie, body: { url: URL_A, subscribed_events: ['*'] } });
    expect(res.status).toBe(201);
    expect(res.body.subscribed_events).toEqual(['*']);
    expect(res.body.description).toBeNull();
  });

  it('replays the same answer for the same Idempotency-Key and creates one endpoint', async () => {
    const before = await h.count('webhook_endpoints');
    const body = { url: URL_A, subscribed_events: ['order.failed'] };
    const first = await create(a.secretKey, body, 'idem-we-1');
    const second = await create(a.secretKey, body, 'idem-we-1');
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(await h.count('webhook_endpoints')).toBe(before + 1);
  });

  const invalid: [string, unknown, string][] = [
    ['an unknown event type', { url: URL_A, subscribed_events: ['order.paid'] }, 'subscribed_events.0'],
    ['no event types', { url: URL_A, subscribed_events: [] }, 'subscribed_events'],
    ['a repeated event type', { url: URL_A, subscribed_events: ['order.failed', 'order.failed'] }, 'subscribed_events'],
    ['"*" mixed with types', { url: URL_A, subscribed_events: ['*', 'order.failed'] }, 'subscribed_events'],
    ['a missing url', { subscribed_events: ['order.failed'] }, 'url'],
    ['a url that is not a URL', { url: 'not a url', subscribed_events: ['order.failed'] }, 'url'],
    ['a non-http scheme', { url: 'ftp://127.0.0.1/x', subscribed_events: ['order.failed'] }, 'url'],
    ['credentials in the url', { url: 'http://user:pw@127.0.0.1/x', subscribed_events: ['order.failed'] }, 'url'],
    ['the metadata address, even on devnet', { url: 'http://169.254.169.254/latest', subscribed_events: ['order.failed'] }, 'url'],
    ['an unknown field', { url: URL_A, subscribed_events: ['order.failed'], enabled: true }, 'enabled'],
    ['a description too long', { url: URL_A, subscribed_events: ['order.failed'], description: 'x'.repeat(501) }, 'description'],
  ];
  for (const [what, body, param] of invalid) {
    it(`refuses ${what} with 422 and writes nothing`, async () => {
      const before = await h.count('webhook_endpoints');
      const res = await create(a.secretKey, body);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.param).toBe(param);
      expect(await h.count('webhook_endpoints')).toBe(before);
    });
  }

  it('needs a secret key or a session', async () => {
    expect((await h.request('POST', '/v1/webhooks/endpoints', { body: { url: URL_A, subscribed_events: ['*'] } })).status).toBe(401);
    const pk = await create(a.publishableKey, { url: URL_A, subscribed_events: ['*'] });
    expect(pk.status).toBe(403);
    expect(pk.body.error.code).toBe('secret_key_required');
    expect((await h.request('GET', '/v1/webhooks/endpoints', { key: a.publishableKey })).status).toBe(403);
  });

  it('caps the number of endpoints per platform', async () => {
    const c = await h.platform();
    for (let i = 0; i < 16; i++) expect((await create(c.secretKey, { url: URL_A, subscribed_events: ['*'] })).status).toBe(201);
    const res = await create(c.secretKey, { url: URL_A, subscribed_events: ['*'] });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
  });
});

describe('GET /v1/webhooks/endpoints', () => {
  it('pages newest first with a cursor', async () => {
    const c = await h.platform();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(c.secretKey, { url: URL_A, subscribed_events: ['*'] })).body.id);
    const p1 = await h.request('GET', '/v1/webhooks/endpoints?limit=2', { key: c.secretKey });
    expect(p1.body).toMatchObject({ object: 'list', has_more: true });
    expect(p1.body.data.map((e: { id: string }) => e.id)).toEqual([ids[4], ids[3]]);
    const p2 = await h.request('GET', `/v1/webhooks/endpoints?limit=2&cursor=${p1.body.next_cursor}`, { key: c.secretKey });
    const p3 = await h.request('GET', `/v1/webhooks/endpoints?limit=2&cursor=${p2.body.next_cursor}`, { key: c.secretKey });
    expect(p2.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    expect(p3.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(p3.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
  });

  it('refuses unknown query parameters and bad cursors', async () => {
    expect((await h.request('GET', '/v1/webhooks/endpoints?foo=1', { key: a.secretKey })).status).toBe(422);
    expect((await h.request('GET', '/v1/webhooks/endpoints?limit=101', { key: a.secretKey })).status).toBe(422);
    const bad = await h.request('GET', '/v1/webhooks/endpoints?cursor=garbage', { key: a.secretKey });
    expect(bad.status).toBe(422);
    expect(bad.body.error.param).toBe('cursor');
  });
});

describe('DELETE /v1/webhooks/endpoints/:id', () => {
  it('deletes (softly) and hides the endpoint afterwards', async () => {
    const id = (await create(a.secretKey, { url: URL_A, subscribed_events: ['*'] })).body.id;
    const del = await h.request('DELETE', `/v1/webhooks/endpoints/${id}`, { key: a.secretKey });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id, object: 'webhook_endpoint', deleted: true });
    expect((await h.request('GET', `/v1/webhooks/endpoints/${id}`, { key: a.secretKey })).status).toBe(404);
    expect((await h.request('DELETE', `/v1/webhooks/endpoints/${id}`, { key: a.secretKey })).status).toBe(404);
    const list = await h.request('GET', '/v1/webhooks/endpoints?limit=100', { key: a.secretKey });
    expect(list.body.data.some((e: { id: string }) => e.id === id)).toBe(false);
    const row = await h.db.selectFrom('webhook_endpoints').select('deleted_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.deleted_at).toBeInstanceOf(Date);
  });
});

describe('POST /v1/webhooks/endpoints/:id/roll-secret', () => {
  it('returns a new secret and keeps the old one valid for 24 hours', async () => {
    const created = (await create(a.secretKey, { url: URL_A, subscribed_events: ['*'] })).body;
    const rolled = await h.request('POST', `/v1/webhooks/endpoints/${created.id}/roll-secret`, { key: a.secretKey });
    expect(rolled.status).toBe(200);
    expect(rolled.body.secret).toMatch(/^whsec_/);
    expect(rolled.body.secret).not.toBe(created.secret);
    const until = Date.parse(rolled.body.previous_secret_expires_at);
    expect(until - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    const row = await h.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(h.services.webhookSecrets.open(row.secret)).toBe(rolled.body.secret); // sealed at rest
    expect(h.services.webhookSecrets.open(row.previous_secret!)).toBe(created.secret);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another platform's endpoint, whatever the operation", async () => {
    const id = (await create(a.secretKey, { url: URL_A, subscribed_events: ['*'] })).body.id;
    for (const [method, path] of [
      ['GET', `/v1/webhooks/endpoints/${id}`],
      ['DELETE', `/v1/webhooks/endpoints/${id}`],
      ['POST', `/v1/webhooks/endpoints/${id}/roll-secret`],
      ['GET', `/v1/webhooks/endpoints/${id}/deliveries`],
    ] as const) {
      const res = await h.request(method, path, { key: b.secretKey });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const list = await h.request('GET', '/v1/webhooks/endpoints?limit=100', { key: b.secretKey });
    expect(list.body.data.some((e: { id: string }) => e.id === id)).toBe(false);
    // Untouched for its owner.
    expect((await h.request('GET', `/v1/webhooks/endpoints/${id}`, { key: a.secretKey })).status).toBe(200);
  });
});

describe('auth (every webhook and event route)', () => {
  const routes: [string, string][] = [
    ['POST', '/v1/webhooks/endpoints'], ['GET', '/v1/webhooks/endpoints'], ['GET', '/v1/webhooks/endpoints/we_x'],
    ['DELETE', '/v1/webhooks/endpoints/we_x'], ['POST', '/v1/webhooks/endpoints/we_x/roll-secret'],
    ['GET', '/v1/webhooks/endpoints/we_x/deliveries'], ['POST', '/v1/webhooks/deliveries/dlv_x/redeliver'],
    ['GET', '/v1/events'], ['GET', '/v1/events/evt_x'],
  ];
  for (const [method, path] of routes) {
    it(`${method} ${path}: 401 without a credential, 403 with a publishable key, 401 with an unknown key`, async () => {
      const body = method === 'POST' && path.endsWith('endpoints') ? { url: URL_A, subscribed_events: ['*'] } : undefined;
      const none = await h.request(method, path, { body });
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('unauthenticated');
      const pk = await h.request(method, path, { body, key: a.publishableKey });
      expect(pk.status).toBe(403);
      expect(pk.body.error.code).toBe('secret_key_required');
      const bogus = await h.request(method, path, { body, key: 'sk_live_0000000000000000000000000000dead' });
      expect(bogus.status).toBe(401);
    });
  }
});
