/**
 * The SDK's x402 paywall in-process: a real Hono app and a real Express server, paid by the stock client
 * (`@x402/fetch` + `@x402/evm`'s exact scheme with a viem account), against a stand-in for the Trisettle API
 * (the SDK's own fetch option) that records every call. What is checked: the 402's shape and header encoding,
 * the payload the service receives, the binding of a payment to the route it was offered for, the error paths,
 * and how many orders unpaid requests create.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express from 'express';
import { Hono } from 'hono';
import { verifyTypedData, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { createX402Paywall, decodeX402Header, encodeX402Header, type X402PaymentPayload, type X402PaymentRequired } from '@trisettle/sdk/x402';
import { x402Paywall as honoPaywall } from '@trisettle/sdk/x402/hono';
import { x402Paywall as expressPaywall } from '@trisettle/sdk/x402/express';
import { buyer, confirmedSettle, fakeService, honoApp, ROUTER, stockFetch, USDC_BASE_SEPOLIA } from './x402-fakes.js';

describe('the unpaid request', () => {
  it('answers 402 with the v2 PAYMENT-REQUIRED header (base64 JSON) equal to the JSON body, for a fresh order', async () => {
    const svc = fakeService();
    const { fetchApp, handled } = honoApp(svc);
    const res = await fetchApp('http://shop.test/report?q=1');
    expect(res.status).toBe(402);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = await res.json() as X402PaymentRequired;
    expect(decodeX402Header(res.headers.get('PAYMENT-REQUIRED')!)).toEqual(body);
    expect(JSON.parse(Buffer.from(res.headers.get('PAYMENT-REQUIRED')!, 'base64').toString('utf8'))).toEqual(body);
    expect(body).toMatchObject({ x402Version: 2, resource: { url: 'http://shop.test/report?q=1' }, accepts: [{ scheme: 'exact', amount: '50000', payTo: ROUTER }] });
    expect(body.extensions?.trisettle).toMatchObject({ info: { binding: expect.stringMatching(/^[\w-]{43}$/) } });
    expect(svc.calls.map(({ path, body }) => ({ path, body }))).toEqual([{ path: '/v1/x402/requirements', body: { merchant_id: 'acme', amount: '0.05', resource: 'http://shop.test/report?q=1', description: 'A report', metadata: { sku: 'r1' } } }]);
    expect(handled()).toBe(0);
  });

  it('creates one order per unpaid request by default, and takes the price from a function of the request', async () => {
    const svc = fakeService();
    const app = new Hono();
    app.get('/item/:n', honoPaywall({ client: svc.client, merchantId: 'acme', price: (req) => `0.0${new URL(req.url).pathname.slice(-1)}` }), (c) => c.text('x'));
    for (const n of [1, 2, 2]) expect((await app.request(`http://shop.test/item/${n}`)).status).toBe(402);
    expect(svc.calls.map((c) => c.body.amount)).toEqual(['0.01', '0.02', '0.02']);
  });
});

describe('the paid retry (stock @x402/fetch + @x402/evm)', () => {
  it('settles the payload it accepted and runs the handler with the receipt; PAYMENT-RESPONSE decodes with @x402/fetch', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp, handled } = honoApp(svc);
    const res = await stockFetch(fetchApp)('http://shop.test/report');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: 'ok', paid_by: buyer.address, order: 'ord_1' });
    expect(handled()).toBe(1);
    expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toEqual({
      success: true, transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:84532', payer: buyer.address, amount: '50000',
    });

    const settle = svc.calls.find((c) => c.path === '/v1/x402/settle')!.body as { paymentPayload: X402PaymentPayload; paymentRequirements: unknown; x402Version: number };
    expect(settle.x402Version).toBe(2);
    expect(settle.paymentRequirements).toEqual(settle.paymentPayload.accepted);
    expect(settle.paymentPayload.extensions).toBeUndefined(); // the binding is ours; the service gets what it issued
    // What the agent signed: USDC's TransferWithAuthorization to the router for exactly the amount.
    const { authorization: a, signature } = settle.paymentPayload.payload as { authorization: Record<string, string>; signature: Hex };
    // In one spelling (lower-case hex), whatever the client's: a re-cased copy is the same payment.
    expect(a).toMatchObject({ from: buyer.address.toLowerCase(), to: ROUTER.toLowerCase(), value: '50000', validAfter: '0' });
    expect(a.nonce).toMatch(/^0x[0-9a-f]{64}$/);
    const valid = await verifyTypedData({
      address: buyer.address, signature, primaryType: 'TransferWithAuthorization',
      domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: USDC_BASE_SEPOLIA },
      types: { TransferWithAuthorization: [
        { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] },
      message: { from: a.from as Address, to: a.to as Address, value: BigInt(a.value!), validAfter: 0n, validBefore: BigInt(a.validBefore!), nonce: a.nonce as Hex },
    });
    expect(valid).toBe(true);
  });

  it('refuses a payment offered for another route (a cheaper one) before anything is settled', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp, handled } = honoApp(svc);
    // The agent is sent the cheap route's 402 and pays it; the payment is presented to the expensive route.
    const cheap = await fetchApp('http://shop.test/report');
    const payload = await x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] })
      .createPaymentPayload(decodeX402Header<X402PaymentRequired>(cheap.headers.get('PAYMENT-REQUIRED')!) as never);
    const res = await fetchApp('http://shop.test/premium', { headers: { 'PAYMENT-SIGNATURE': encodeX402Header(payload as never) } });
    expect(res.status).toBe(402);
    expect(decodeX402Header<X402PaymentRequired>(res.headers.get('PAYMENT-REQUIRED')!).error).toBe('payment_not_for_this_resource');
    // Same route, amount edited by the client: also unbound.
    const edited = { ...payload, accepted: { ...payload.accepted, amount: '1' } };
    const res2 = await fetchApp('http://shop.test/report', { headers: { 'PAYMENT-SIGNATURE': encodeX402Header(edited as never) } });
    expect(decodeX402Header<X402PaymentRequired>(res2.headers.get('PAYMENT-REQUIRED')!).error).toBe('payment_not_for_this_resource');
    expect(svc.count('/v1/x402/settle')).toBe(0);
    expect(handled()).toBe(0);
  });

  it('accepts a payment offered by another instance holding the same secret key, not one of another key', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const a = createX402Paywall({ client: svc.client, merchantId: 'acme', price: '0.05' });
    const b = createX402Paywall({ client: svc.client, merchantId: 'acme', price: '0.05' });
    const otherKey = fakeService('sk_live_other');
    otherKey.answerSettle({ status: 200, body: confirmedSettle });
    const other = createX402Paywall({ client: otherKey.client, merchantId: 'acme', price: '0.05' });
    const req = (header?: string) => ({ method: 'GET', url: 'http://shop.test/r', header: (n: string) => (n === 'PAYMENT-SIGNATURE' ? header : undefined) });
    const offered = await a(req());
    if (offered.paid) throw new Error('expected 402');
    const payload = await x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] }).createPaymentPayload(offered.body as never);
    const header = encodeX402Header(payload as never);
    expect((await b(req(header))).paid).toBe(true);
    const refused = await other(req(header));
    expect(refused.paid).toBe(false);
    expect(otherKey.count('/v1/x402/settle')).toBe(0);
  });
});

describe('error paths', () => {
  it('a header that is not base64 JSON, not v2, or too long is a 402 with a fresh offer naming the reason', async () => {
    const svc = fakeService();
    const { fetchApp } = honoApp(svc);
    const v1 = Buffer.from(JSON.stringify({ x402Version: 1, payload: {}, accepted: {} })).toString('base64');
    for (const [header, reason] of [['%%%', /^invalid_payload: not a base64/], [v1, /x402Version must be 2/], ['A'.repeat(20_000), /acceptable length/], [Buffer.from('{"x402Version":2').toString('base64'), /not base64 JSON/]] as const) {
      const res = await fetchApp('http://shop.test/report', { headers: { 'PAYMENT-SIGNATURE': header } });
      expect(res.status).toBe(402);
      expect(decodeX402Header<X402PaymentRequired>(res.headers.get('PAYMENT-REQUIRED')!).error).toMatch(reason);
    }
    expect(svc.count('/v1/x402/settle')).toBe(0);
  });

  it('a settlement the service refuses is a 402 with PAYMENT-RESPONSE success:false and its reason; the handler does not run', async () => {
    const svc = fakeService();
    const { fetchApp, handled } = honoApp(svc);
    svc.answerSettle({ status: 200, body: { success: false, errorReason: 'order_already_paid', payer: buyer.address, transaction: '', network: 'eip155:84532' } });
    const res = await stockFetch(fetchApp)('http://shop.test/report');
    expect(res.status).toBe(402);
    expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: false, errorReason: 'order_already_paid', payer: buyer.address });
    expect(await res.json()).toEqual({ x402Version: 2, error: 'order_already_paid' });
    svc.answerSettle({ status: 400, body: { error: { code: 'validation_error', type: 'invalid_request_error', message: 'bad' } } });
    const res2 = await stockFetch(fetchApp)('http://shop.test/report');
    expect(decodePaymentResponseHeader(res2.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: false, errorReason: 'validation_error' });
    expect(handled()).toBe(0);
  });

  it('a service failure (5xx) is the app\'s error, not a 402 inviting another payment', async () => {
    const svc = fakeService();
    const { fetchApp, handled } = honoApp(svc);
    svc.answerSettle({ status: 503, body: { error: { code: 'service_unavailable', type: 'api_error', message: 'down' } } });
    const res = await stockFetch(fetchApp)('http://shop.test/report');
    expect(res.status).toBe(500);
    expect(handled()).toBe(0);
  });

  it('refuses to start without a key or a merchant', () => {
    expect(() => createX402Paywall({ merchantId: 'acme', price: '1' })).toThrow(/client .* or apiKey/);
    expect(() => createX402Paywall({ apiKey: 'sk_live_x', price: '1' } as never)).toThrow(/merchantId/);
  });
});

describe('one payment, one response', () => {
  const paidHeader = async (fetchApp: typeof globalThis.fetch, url: string) => {
    const sent: string[] = [];
    const recording = ((input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const h = req.headers.get('PAYMENT-SIGNATURE');
      if (h) sent.push(h);
      return fetchApp(req);
    }) as typeof globalThis.fetch;
    const res = await stockFetch(recording)(url);
    return { res, header: sent[0]! };
  };

  it('a replay of a settled PAYMENT-SIGNATURE is refused (payment_already_used), though the service answers it as paid', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp, handled } = honoApp(svc);
    const { res, header } = await paidHeader(fetchApp, 'http://shop.test/report');
    expect(res.status).toBe(200);
    const replay = await fetchApp('http://shop.test/report', { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(replay.status).toBe(402);
    expect(decodePaymentResponseHeader(replay.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: false, errorReason: 'payment_already_used' });
    expect(handled()).toBe(1);
  });

  it('the same PAYMENT-SIGNATURE twice at once: one 200; the other, told 409 then answered from the first, 402', async () => {
    const svc = fakeService('sk_live_test', { maxRetries: 3, overlap: true });
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp, handled } = honoApp(svc);
    const offered = decodeX402Header<X402PaymentRequired>((await fetchApp('http://shop.test/report')).headers.get('PAYMENT-REQUIRED')!);
    const payload = await x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] }).createPaymentPayload(offered as never);
    const header = encodeX402Header(payload as never);
    const both = await Promise.all([1, 2].map(() => fetchApp('http://shop.test/report', { headers: { 'PAYMENT-SIGNATURE': header } })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 402]);
    const refused = both.find((r) => r.status === 402)!;
    expect(decodePaymentResponseHeader(refused.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: false, errorReason: 'payment_already_used' });
    expect(svc.count('/v1/x402/settle')).toBe(3); // first, 409, replay
    expect(handled()).toBe(1);
  });

  it('our own answer lost on the way back (the SDK retried with the same key): served, not refused', async () => {
    const svc = fakeService('sk_live_test', { maxRetries: 2 });
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp, handled } = honoApp(svc);
    svc.loseNextAnswer();
    const { res } = await paidHeader(fetchApp, 'http://shop.test/report');
    expect(res.status).toBe(200);
    expect(svc.count('/v1/x402/settle')).toBe(2);
    expect(handled()).toBe(1);
  });

  it('an authorization past its validBefore is refused without calling the service (a replay after the key is forgotten)', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp } = honoApp(svc);
    const offered = decodeX402Header<X402PaymentRequired>((await fetchApp('http://shop.test/report')).headers.get('PAYMENT-REQUIRED')!);
    const payload = await x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] }).createPaymentPayload(offered as never);
    const p = payload as unknown as { payload: { authorization: { validBefore: string } } };
    p.payload.authorization.validBefore = String(Math.floor(Date.now() / 1000) - 1);
    const res = await fetchApp('http://shop.test/report', { headers: { 'PAYMENT-SIGNATURE': encodeX402Header(payload as never) } });
    expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_payload_authorization_valid_before' });
    expect(svc.count('/v1/x402/settle')).toBe(0);
  });
});

describe('bounding what unpaid callers cost (requirementsCacheSeconds)', () => {
  it('reuses one order per route, price and key within the window, a fresh one once it is paid, within maxCachedRequirements', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp } = honoApp(svc, { requirementsCacheSeconds: 60, maxCachedRequirements: 2 });
    const sessions = async (url: string) => decodeX402Header<X402PaymentRequired>((await fetchApp(url)).headers.get('PAYMENT-REQUIRED')!).accepts[0]!.extra.trisettle_session;
    const first = await sessions('http://shop.test/report');
    for (let i = 0; i < 5; i++) expect(await sessions('http://shop.test/report')).toBe(first);
    expect(svc.count('/v1/x402/requirements')).toBe(1);
    expect((await stockFetch(fetchApp)('http://shop.test/report')).status).toBe(200);
    expect(await sessions('http://shop.test/report')).not.toBe(first); // paid: the next caller gets a new order
    for (const q of ['a', 'b', 'c']) await sessions(`http://shop.test/report?${q}`);
    expect(await sessions('http://shop.test/report?a')).not.toBe(await sessions('http://shop.test/report?b')); // ?a was evicted (2 kept)
  });
});

describe('Express adapter (a real Express 5 server)', () => {
  let server: Server;
  let base = '';
  const svc = fakeService();
  let handled = 0;
  beforeAll(async () => {
    const app = express();
    app.get('/report', expressPaywall({ client: svc.client, merchantId: 'acme', price: '0.05' }), (_req, res) => {
      handled++;
      res.json({ report: 'ok', paid_by: (res.locals.x402 as { payer: string }).payer });
    });
    server = createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers 402 for the URL the client used, and the stock client pays it', async () => {
    const unpaid = await fetch(`${base}/report?x=1`);
    expect(unpaid.status).toBe(402);
    const body = await unpaid.json() as X402PaymentRequired;
    expect(decodeX402Header(unpaid.headers.get('payment-required')!)).toEqual(body);
    expect(body.resource.url).toBe(`${base}/report?x=1`);

    svc.answerSettle({ status: 200, body: confirmedSettle });
    const paid = await stockFetch(fetch)(`${base}/report`);
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ report: 'ok', paid_by: buyer.address });
    expect(decodePaymentResponseHeader(paid.headers.get('payment-response')!)).toMatchObject({ success: true, payer: buyer.address });
    expect(handled).toBe(1);
  });

  it('a refused settlement is a 402 and the handler does not run', async () => {
    svc.answerSettle({ status: 200, body: { success: false, errorReason: 'invalid_signature', transaction: '', network: 'eip155:84532' } });
    const res = await stockFetch(fetch)(`${base}/report`);
    expect(res.status).toBe(402);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({ success: false, errorReason: 'invalid_signature' });
    expect(handled).toBe(1);
  });
});

describe('the stock client\'s own spend controls (what docs/integration.md tells agents)', () => {
  it('refuses more than $1 of a listed USDC by default, and pays it once maxAmountPerPayment is raised', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp } = honoApp(svc);
    await expect(stockFetch(fetchApp)('http://shop.test/premium')).rejects.toThrow(/maxAmountPerPayment/);
    const raised = wrapFetchWithPayment(fetchApp, x402Client.fromConfig({
      schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }], spendControls: { maxAmountPerPayment: '$25' },
    }));
    expect((await raised('http://shop.test/premium')).status).toBe(200);
  });
});
