import { describe, expect, it } from 'vitest';
import { Trisettle, TrisettleConnectionError, TrisettleError } from '@trisettle/sdk';

/** A scripted fetch: each call takes the next step (a response or a thrown network error) and is recorded. */
function scripted(...steps: (Response | Error | (() => Response))[]) {
  const calls: { method: string; url: string; headers: Headers; body: string | undefined }[] = [];
  const fetch = (async (url: string, init: RequestInit) => {
    calls.push({ method: String(init.method), url, headers: new Headers(init.headers), body: init.body as string | undefined });
    const step = steps.shift();
    if (!step) throw new Error('no more scripted responses');
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step() : step;
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const apiError = (status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  json(status, { error: { type: 'invalid_request_error', code, message: `${code} happened`, request_id: 'req_abc', ...extra } }, headers);
const client = (fetch: typeof globalThis.fetch, maxRetries = 3) =>
  new Trisettle({ secretKey: 'sk_live_test', baseUrl: 'http://api.test/', fetch, maxRetries, retryDelayMs: 1 });
const order = { id: 'ord_1', object: 'order' };
const body = { merchant_id: 'm', order_no: 'o-1', chain_id: 84532 as const, token: 'USDC' as const, amount: '1.00' };

describe('SDK transport', () => {
  it('sends the key, JSON and a UUID Idempotency-Key on POST; none on GET', async () => {
    const s = scripted(json(201, order), json(200, order));
    const c = client(s.fetch);
    await c.orders.create(body);
    await c.orders.retrieve('ord_1');
    const [post, get] = s.calls;
    expect(post!.url).toBe('http://api.test/v1/orders');
    expect(post!.headers.get('authorization')).toBe('Bearer sk_live_test');
    expect(post!.headers.get('content-type')).toBe('application/json');
    expect(post!.headers.get('idempotency-key')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(post!.body!)).toEqual(body);
    expect(get!.headers.get('idempotency-key')).toBeNull();
    expect(get!.url).toBe('http://api.test/v1/orders/ord_1');
  });

  it('retries network errors, 5xx, 429 and 409 idempotency_key_in_use with the same key', async () => {
    const s = scripted(
      new TypeError('fetch failed'),
      apiError(503, 'service_unavailable'),
      apiError(429, 'rate_limited', {}, { 'retry-after': '0' }),
      apiError(409, 'idempotency_key_in_use'),
      json(201, order),
    );
    await expect(client(s.fetch, 4).orders.create(body)).resolves.toEqual(order);
    expect(s.calls).toHaveLength(5);
    expect(new Set(s.calls.map((c) => c.headers.get('idempotency-key'))).size).toBe(1);
    expect(new Set(s.calls.map((c) => c.body)).size).toBe(1);
  });

  it('keeps a caller-chosen Idempotency-Key across retries', async () => {
    const s = scripted(apiError(500, 'internal'), json(201, order));
    await client(s.fetch).orders.create(body, { idempotencyKey: 'cart-42-attempt' });
    expect(s.calls.map((c) => c.headers.get('idempotency-key'))).toEqual(['cart-42-attempt', 'cart-42-attempt']);
  });

  it('does not retry what another attempt cannot fix, and types the error', async () => {
    for (const [status, code] of [[409, 'duplicate_idempotency_key'], [409, 'conflict'], [422, 'validation_failed'], [401, 'unauthenticated'], [404, 'not_found']] as const) {
      const s = scripted(apiError(status, code, code === 'validation_failed' ? { param: 'amount' } : {}));
      const err = await client(s.fetch).orders.create(body).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TrisettleError);
      expect(err).toMatchObject({ status, code, requestId: 'req_abc', type: 'invalid_request_error', message: `${code} happened` });
      if (code === 'validation_failed') expect((err as TrisettleError).param).toBe('amount');
      expect(s.calls).toHaveLength(1);
    }
  });

  it('gives up after maxRetries with a connection error, or with the last API error', async () => {
    const net = scripted(new TypeError('fetch failed'), new TypeError('fetch failed'), new TypeError('fetch failed'));
    const err = await client(net.fetch, 2).orders.create(body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrisettleConnectionError);
    expect(err).toMatchObject({ status: 0, code: 'connection_error' });
    expect(net.calls).toHaveLength(3);
    const busy = scripted(apiError(502, 'internal'), apiError(502, 'internal'));
    await expect(client(busy.fetch, 1).orders.list()).rejects.toMatchObject({ status: 502 });
  });

  it('does not wait out a Retry-After longer than a minute', async () => {
    const s = scripted(apiError(429, 'rate_limited', {}, { 'retry-after': '3600' }));
    await expect(client(s.fetch).orders.retrieve('ord_1')).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
    expect(s.calls).toHaveLength(1);
  });

  it('turns a non-API error body (a proxy page) into an unexpected_response error with the request id header', async () => {
    const s = scripted(new Response('<html>bad gateway</html>', { status: 400, headers: { 'x-request-id': 'req_proxy' } }));
    await expect(client(s.fetch).orders.retrieve('ord_1')).rejects.toMatchObject({ status: 400, code: 'unexpected_response', requestId: 'req_proxy' });
  });

  it('iterates pages by next_cursor, keeping the filters', async () => {
    const page = (ids: string[], next: string | null) => json(200, { object: 'list', data: ids.map((id) => ({ id })), has_more: next !== null, next_cursor: next });
    const s = scripted(page(['a', 'b'], 'c1'), page(['c', 'd'], 'c2'), page(['e'], null));
    const ids: string[] = [];
    for await (const o of client(s.fetch).orders.list({ state: 'confirmed', limit: 2 })) ids.push(o.id);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(s.calls.map((c) => new URL(c.url).search)).toEqual(['?state=confirmed&limit=2', '?state=confirmed&limit=2&cursor=c1', '?state=confirmed&limit=2&cursor=c2']);
  });

  it('awaiting a list gives its first page only', async () => {
    const s = scripted(json(200, { object: 'list', data: [{ id: 'a' }], has_more: true, next_cursor: 'c1' }));
    const page = await client(s.fetch).merchants.list({ limit: 1 });
    expect(page).toMatchObject({ has_more: true, next_cursor: 'c1' });
    expect(s.calls).toHaveLength(1);
  });

  it('encodes path segments and refuses a missing key', () => {
    const s = scripted(json(200, {}));
    void client(s.fetch).merchants.retrieve('shop/1?x');
    expect(s.calls[0]!.url).toBe('http://api.test/v1/merchants/shop%2F1%3Fx');
    expect(() => new Trisettle({ secretKey: '' })).toThrow(/secretKey/);
  });

  it('takes its base URL from TRISETTLE_API when none is given, and names that variable when neither is there', () => {
    const saved = process.env.TRISETTLE_API;
    try {
      process.env.TRISETTLE_API = 'http://api.from-env.test/';
      expect(new Trisettle({ secretKey: 'sk_live_x' }).baseUrl).toBe('http://api.from-env.test');
      delete process.env.TRISETTLE_API;
      expect(() => new Trisettle({ secretKey: 'sk_live_x' })).toThrow(/baseUrl is required.*TRISETTLE_API/);
    } finally {
      if (saved === undefined) delete process.env.TRISETTLE_API;
      else process.env.TRISETTLE_API = saved;
    }
  });
});
