/**
 * The request log keeps the bodies of EVERY request (successes too), redacted and cut: what a developer page
 * shows to answer "what did I send, what did it say". Secrets never stored: secret-named fields, key-, secret-
 * and token-shaped text (sk_live_, whsec_, cs_live_, sub_live_…), signatures; each body at most MAX_STORED_BODY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_READ_BODY, MAX_STORED_BODY, redactBody, redactText } from '../../src/modules/request-logs/redact.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';

let h: Harness;
let a: Awaited<ReturnType<Harness['platform']>>;

beforeAll(async () => {
  h = await createHarness(fakeChain());
  a = await h.platform();
});
afterAll(() => h.close());

async function logOf(res: { headers: Headers }) {
  const id = res.headers.get('x-request-id')!;
  const got = await h.request('GET', `/v1/developers/request_logs/${id}`, { key: a.secretKey });
  expect(got.status).toBe(200);
  return got.body as { status: number; request_body: string | null; response_body: string | null; path: string };
}

describe('request log bodies', () => {
  it('keeps the request and the answer of a success, with the endpoint secret redacted from the answer', async () => {
    const res = await h.request('POST', '/v1/webhooks/endpoints', { key: a.secretKey, body: { url: 'http://127.0.0.1:9/hooks', subscribed_events: ['order.confirmed'] } });
    expect(res.status).toBe(201);
    expect(res.body.secret).toMatch(/^whsec_/);
    const log = await logOf(res);
    expect(log.status).toBe(201);
    expect(JSON.parse(log.request_body!)).toEqual({ url: 'http://127.0.0.1:9/hooks', subscribed_events: ['order.confirmed'] });
    const answer = JSON.parse(log.response_body!);
    expect(answer).toMatchObject({ id: res.body.id, url: 'http://127.0.0.1:9/hooks', secret: '[redacted]' });
    expect(log.response_body).not.toContain(res.body.secret);
  });

  it('redacts checkout tokens (in a token field and inside a URL) and order signatures', async () => {
    const m = await merchant(h, a.secretKey);
    const res = await h.request('POST', '/v1/checkout/sessions', {
      key: a.secretKey, body: { merchant_id: m.external_id, order_no: `rl-${Date.now()}`, chain_id: 84532, token: 'USDC', amount: '3.00' },
    });
    expect(res.status).toBe(201);
    const log = await logOf(res);
    expect(log.response_body).not.toContain(res.body.session_token);
    expect(JSON.parse(log.response_body!)).toMatchObject({ id: res.body.id, session_token: '[redacted]', url: expect.stringContaining('cs_live_[redacted]') });
    const o = await h.request('GET', `/v1/orders/${res.body.order_id}`, { key: a.secretKey });
    expect(o.body.signature).toMatch(/^0x[0-9a-f]{130}$/);
    const orderLog = await logOf(o);
    expect(orderLog.request_body).toBeNull();
    expect(orderLog.response_body).not.toContain(o.body.signature);
    expect(JSON.parse(orderLog.response_body!)).toMatchObject({ id: o.body.id, signature: '[redacted]' });
  });

  it('cuts a large answer to the bound, still redacting what it keeps', async () => {
    const m = await merchant(h, a.secretKey);
    for (let i = 0; i < 12; i++) await order(h, a.secretKey, m.external_id);
    const list = await h.request('GET', '/v1/orders?limit=100', { key: a.secretKey });
    expect(list.text.length).toBeGreaterThan(MAX_STORED_BODY);
    const log = await logOf(list);
    expect(log.response_body!.length).toBe(MAX_STORED_BODY);
    expect(log.response_body).toContain('"object":"list"');
    for (const o of list.body.data) expect(log.response_body).not.toContain(o.signature);
  });

  it('answers in full an answer longer than the part it reads (MAX_READ_BODY), and logs its first MAX_STORED_BODY', async () => {
    // 120 events of ~1.6 KB: the list of 100 is past MAX_READ_BODY. The log's copy was read and cancelled while
    // the client's branch was unread; awaiting that cancel hung the request for good.
    for (let i = 0; i < 120; i++) {
      await h.services.events.emit(h.db, { platformId: a.platformId, type: 'order.confirmed', data: { object: { id: `obj_big_${i}`, note: 'x'.repeat(1_500) } } });
    }
    const list = await Promise.race([
      h.request('GET', '/v1/events?limit=100', { key: a.secretKey }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the answer never came')), 10_000)),
    ]);
    expect(list.status).toBe(200);
    expect(list.text.length).toBeGreaterThan(MAX_READ_BODY);
    expect(list.body.data).toHaveLength(100);
    const log = await logOf(list);
    expect(log.response_body!.length).toBe(MAX_STORED_BODY);
    expect(list.text.startsWith(log.response_body!)).toBe(true);
  });

  it('keeps the body of a refused request and says why, with the password-like fields redacted', async () => {
    const res = await h.request('POST', '/v1/webhooks/endpoints', { key: a.secretKey, body: { url: 'http://127.0.0.1:9/x', subscribed_events: ['nope'], secret: 'whsec_mine' } });
    expect(res.status).toBe(422);
    const log = await logOf(res);
    expect(JSON.parse(log.request_body!)).toEqual({ url: 'http://127.0.0.1:9/x', subscribed_events: ['nope'], secret: '[redacted]' });
    expect(JSON.parse(log.response_body!).error.code).toBe('validation_failed');
  });
});

describe('redaction of text that is not whole JSON', () => {
  it('redacts secret-named members of JSON cut before its end, and tokens in a path', () => {
    const cut = '{"data":[{"id":"ord_1","signature":"0xabc123","eip712":{"message":{"nonce":"42"}}},{"id":"ord_2","signature":"0xdef4';
    const out = redactBody(cut)!;
    expect(out).not.toMatch(/0xabc123|0xdef4|"42"/);
    expect(out).toContain('"id":"ord_2"');
    expect(redactText('/v1/subscriptions/authorize/sub_live_AbC123xyz/activate')).toBe('/v1/subscriptions/authorize/sub_live_[redacted]/activate');
    expect(redactText('see sk_live_abc and moi_live_Zz9 and pk_live_q1')).toBe('see sk_live_[redacted] and moi_live_[redacted] and pk_live_[redacted]');
  });
});
