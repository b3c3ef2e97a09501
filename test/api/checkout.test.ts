import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { FAKE_ROUTER, WALLETS, fakeChain, merchant } from '../helpers/factories.js';

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string; name: string };
beforeAll(async () => {
  h = await createHarness(fakeChain());
  p = await h.platform({ name: 'Acme Market', platform_fee_bps: 300 });
  m = await merchant(h, p.secretKey, { name: 'Blue Bottle Goods', reserve_bps: 2000 });
});
afterAll(async () => { await h.close(); });

let seq = 0;
const body = (extra: Record<string, unknown> = {}) => ({ merchant_id: m.external_id, order_no: `cs_o_${++seq}`, chain_id: 84532, token: 'USDC', amount: '40.00', ...extra });

describe('checkout sessions', () => {
  it('creates an open session wrapping a pending order; the public read shows what a buyer needs and no secrets', async () => {
    const before = Date.now();
    const res = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: body({ success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel', metadata: { cart: 7 } }) });
    expect(res.status).toBe(201);
    const s = res.body;
    expect(s.session_token).toMatch(/^cs_live_[0-9A-Za-z]{32}$/);
    expect(s.url).toBe(`${h.config.dashboardUrl}/checkout/${s.session_token}`);
    expect(s).toMatchObject({ state: 'open', success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/cancel' });
    const lifetime = new Date(s.expires_at).getTime() - before;
    expect(lifetime).toBeGreaterThan(29 * 60_000);
    expect(lifetime).toBeLessThan(31 * 60_000);
    const order = await h.request('GET', `/v1/orders/${s.order_id}`, { key: p.secretKey });
    expect(order.body).toMatchObject({ state: 'pending_payment', checkout_session_id: s.id, metadata: { cart: 7 }, deadline_at: s.expires_at });
    const pub = await h.request('GET', `/v1/checkout/sessions/${s.session_token}`);
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({
      state: 'open', merchant: { name: 'Blue Bottle Goods' }, platform: { name: 'Acme Market' },
      order: { id: s.order_id, amount: '40.00', pay_to: FAKE_ROUTER, computed_split: order.body.computed_split, signature: order.body.signature },
      chain: { chain_id: 84532, confirmations_required: 1 },
    });
    const text = JSON.stringify(pub.body);
    for (const secret of [p.secretKey, p.platformId, 'metadata']) expect(text).not.toContain(secret);
  });

  it('locks the signed order to payer_address', async () => {
    const res = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: body({ payer_address: WALLETS.merchant2.toLowerCase() }) });
    expect(res.body.payer_address).toBe(WALLETS.merchant2);
    const pub = await h.request('GET', `/v1/checkout/sessions/${res.body.session_token}`);
    expect(pub.body.order.eip712.message.payer).toBe(WALLETS.merchant2);
  });

  it('honours expires_in_seconds up to 24 h and refuses more', async () => {
    const ok = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: body({ expires_in_seconds: 86400 }) });
    expect(ok.status).toBe(201);
    const n = await h.count('checkout_sessions');
    const o = await h.count('orders');
    for (const extra of [
      { expires_in_seconds: 86401 }, { expires_in_seconds: 10 }, { success_url: 'javascript:alert(1)' }, { success_url: 'not a url' },
      { payer_address: '0xabc' }, { metadata: { big: 'x'.repeat(5200) } }, { amount: '1.1234567' }, { token: 'DAI' }, { chain_id: 1 }, { surprise: true },
    ]) {
      const res = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: body(extra) });
      expect(res.status, JSON.stringify(extra)).toBe(422);
    }
    expect(await h.count('checkout_sessions')).toBe(n);
    expect(await h.count('orders')).toBe(o);
  });

  it('refuses a reused order_no with 409 and writes neither session nor order', async () => {
    const b = body();
    await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: b });
    const [n, o] = [await h.count('checkout_sessions'), await h.count('orders')];
    const dup = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: { ...b } });
    expect(dup.status).toBe(409);
    expect([await h.count('checkout_sessions'), await h.count('orders')]).toEqual([n, o]);
  });

  it('stays open past expires_at until the indexed chain passes it, then expires with its order; a new session may reuse the order_no', async () => {
    const b = body();
    const s = (await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: b })).body;
    await h.db.updateTable('checkout_sessions').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', s.id).execute();
    await h.db.updateTable('orders').set({ deadline_at: new Date(Date.now() - 1000) }).where('id', '=', s.order_id).execute();
    // The wall clock is past the deadline, the indexed chain is not: a payment may still be on its way.
    const early = await h.request('GET', `/v1/checkout/sessions/${s.session_token}`);
    expect([early.body.state, early.body.order.state]).toEqual(['open', 'pending_payment']);
    expect((await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: b })).status).toBe(409);
    await h.services.orders.expireDue(84532, new Date(Date.now() - 2000));
    expect((await h.request('GET', `/v1/checkout/sessions/${s.session_token}`)).body.state).toBe('open');
    await h.services.orders.expireDue(84532, new Date());
    const pub = await h.request('GET', `/v1/checkout/sessions/${s.session_token}`);
    expect(pub.body.state).toBe('expired');
    expect(pub.body.order.state).toBe('expired');
    const again = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: b });
    expect(again.status).toBe(201);
    expect(again.body.order_id).not.toBe(s.order_id);
  });

  it('the sweeper expires due sessions and their orders', async () => {
    const s = (await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: body() })).body;
    await h.db.updateTable('orders').set({ deadline_at: new Date(Date.now() - 1000) }).where('id', '=', s.order_id).execute();
    await h.services.orders.expireDue(84532, new Date());
    const row = await h.db.selectFrom('checkout_sessions').select('state').where('id', '=', s.id).executeTakeFirstOrThrow();
    expect(row.state).toBe('expired');
  });

  it('replays a session creation by Idempotency-Key with the same URL', async () => {
    const b = body();
    const a = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: b, idem: 'cs-idem-1' });
    const c = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: b, idem: 'cs-idem-1' });
    expect(c.status).toBe(201);
    expect(c.body.url).toBe(a.body.url);
    expect(c.headers.get('idempotent-replayed')).toBe('true');
  });

  it('unknown tokens are 404 and other platforms cannot see the order', async () => {
    expect((await h.request('GET', '/v1/checkout/sessions/cs_live_nope')).status).toBe(404);
    const s = (await h.request('GET', '/v1/checkout/sessions/whatever')).status;
    expect(s).toBe(404);
  });
});
