import { recoverTypedDataAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payOrderFromJson, payOrderTypes } from '../../src/chain/eip712.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { FAKE_ROUTER, FAKE_USDC, WALLETS, fakeChain, merchant, order } from '../helpers/factories.js';

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string; id: string };
let signer: string;

beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness(chain);
  signer = privateKeyToAccount(chain.config.signerPrivateKey!).address;
  p = await h.platform({ platform_fee_bps: 500 });
  m = await merchant(h, p.secretKey, { reserve_bps: 1000 });
});
afterAll(async () => { await h.close(); });

describe('POST /v1/orders', () => {
  it('creates a pending order whose split, signed message and response agree to the unit', async () => {
    const o = await order(h, p.secretKey, m.external_id, { amount: '25.00', metadata: { cart: 'c_1' } });
    expect(o).toMatchObject({
      object: 'order', state: 'pending_payment', pay_to: FAKE_ROUTER, amount: '25.00', token: 'USDC',
      merchant_id: m.external_id, metadata: { cart: 'c_1' },
      computed_split: { service_fee: '250000', platform_fee: '1250000', merchant_gross: '23500000', reserve_hold: '2350000', merchant_available: '21150000' },
    });
    expect(o.id).toMatch(/^ord_/);
    const msg = o.eip712.message;
    expect(msg).toMatchObject({
      token: FAKE_USDC, amount: '25000000', serviceFee: '250000', platformFee: '1250000', reserveHold: '2350000',
      merchant: WALLETS.merchant, platform: WALLETS.platform, payer: '0x0000000000000000000000000000000000000000',
    });
    expect(o.eip712.domain).toEqual({ name: 'Trisettle PaymentRouter', version: '1', chainId: 84532, verifyingContract: FAKE_ROUTER });
    expect(o.eip712.primary_type).toBe('PayOrder');
    expect(BigInt(msg.deadline)).toBe(BigInt(Math.floor(new Date(o.deadline_at).getTime() / 1000)));
    const recovered = await recoverTypedDataAddress({
      domain: { ...o.eip712.domain }, types: payOrderTypes, primaryType: 'PayOrder',
      message: payOrderFromJson(o.eip712), signature: o.signature as Hex,
    });
    expect(recovered).toBe(signer);
  });

  it('answers the creation with exactly what every later read shows, byte for byte', async () => {
    const created = await h.request('POST', '/v1/orders', {
      key: p.secretKey,
      body: { merchant_id: m.external_id, order_no: `same_${Date.now()}`, chain_id: 84532, token: 'USDC', amount: '7.25', metadata: { zeta: 1, a: 'x', nested: { b: [1, 2], aa: null } } },
    });
    expect(created.status).toBe(201);
    const read = await h.request('GET', `/v1/orders/${created.body.id}`, { key: p.secretKey });
    const listed = await h.request('GET', '/v1/orders?limit=1', { key: p.secretKey });
    // GET one adds the detail fields (payment_method, payer: null before payment) after the order's own.
    const { payment_method, payer, ...plain } = read.body;
    expect([payment_method, payer]).toEqual([null, null]);
    expect(JSON.stringify(plain)).toBe(created.text);
    expect(JSON.stringify(listed.body.data[0])).toBe(created.text);
  });

  it('defaults deadline_at to one hour and honours expires_in_seconds', async () => {
    const before = Date.now();
    const a = await order(h, p.secretKey, m.external_id);
    const b = await order(h, p.secretKey, m.external_id, { expires_in_seconds: 600 });
    expect(new Date(a.deadline_at).getTime() - before).toBeGreaterThan(3590_000);
    expect(new Date(a.deadline_at).getTime() - before).toBeLessThan(3610_000);
    expect(new Date(b.deadline_at).getTime() - before).toBeLessThan(610_000);
  });

  it('refuses a reused order_no with 409 conflict and writes nothing', async () => {
    const o = await order(h, p.secretKey, m.external_id);
    const n = await h.count('orders');
    const again = await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: o.order_no, chain_id: 84532, token: 'USDC', amount: '1.00' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', param: 'order_no' });
    expect(await h.count('orders')).toBe(n);
  });

  const base = () => ({ merchant_id: m.external_id, order_no: `bad_${Math.random()}`, chain_id: 84532, token: 'USDC', amount: '10.00' });
  const cases: [string, (b: Record<string, unknown>) => Record<string, unknown>, number, string, string?][] = [
    ['amount in exponent form', (b) => ({ ...b, amount: '1e3' }), 422, 'validation_failed', 'amount'],
    ['amount in hex', (b) => ({ ...b, amount: '0x10' }), 422, 'validation_failed', 'amount'],
    ['amount with a leading space', (b) => ({ ...b, amount: ' 1.0' }), 422, 'validation_failed', 'amount'],
    ['amount with 7 decimals', (b) => ({ ...b, amount: '1.0000001' }), 422, 'validation_failed', 'amount'],
    ['amount zero', (b) => ({ ...b, amount: '0.00' }), 422, 'validation_failed', 'amount'],
    ['amount over 1e9', (b) => ({ ...b, amount: '1000000000.000001' }), 422, 'validation_failed', 'amount'],
    ['amount as a number', (b) => ({ ...b, amount: 10 }), 422, 'validation_failed', 'amount'],
    ['negative amount', (b) => ({ ...b, amount: '-1.00' }), 422, 'validation_failed', 'amount'],
    ['unsupported chain id', (b) => ({ ...b, chain_id: 1 }), 422, 'validation_failed', 'chain_id'],
    ['main network not configured', (b) => ({ ...b, chain_id: 8453 }), 422, 'unsupported_chain', 'chain_id'],
    ['token other than USDC', (b) => ({ ...b, token: 'USDT' }), 422, 'validation_failed', 'token'],
    ['unknown merchant', (b) => ({ ...b, merchant_id: 'nobody' }), 404, 'not_found', 'merchant_id'],
    ['unknown field', (b) => ({ ...b, colour: 'red' }), 422, 'validation_failed', 'colour'],
    ['metadata over 5 KB', (b) => ({ ...b, metadata: { blob: 'x'.repeat(5200) } }), 422, 'validation_failed', 'metadata'],
    ['metadata not an object', (b) => ({ ...b, metadata: [1, 2] }), 422, 'validation_failed', 'metadata'],
    ['missing order_no', ({ order_no: _o, ...b }) => b, 422, 'validation_failed', 'order_no'],
    ['empty order_no', (b) => ({ ...b, order_no: '' }), 422, 'validation_failed', 'order_no'],
    ['order_no over 128 chars', (b) => ({ ...b, order_no: 'n'.repeat(129) }), 422, 'validation_failed', 'order_no'],
    ['expires_in_seconds too short', (b) => ({ ...b, expires_in_seconds: 59 }), 422, 'validation_failed', 'expires_in_seconds'],
    ['expires_in_seconds too long', (b) => ({ ...b, expires_in_seconds: 86401 }), 422, 'validation_failed', 'expires_in_seconds'],
  ];
  it.each(cases)('refuses %s with its code and writes nothing', async (_name, mutate, status, code, param) => {
    const n = await h.count('orders');
    const res = await h.request('POST', '/v1/orders', { key: p.secretKey, body: mutate(base()) });
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    if (param) expect(res.body.error.param).toBe(param);
    expect(await h.count('orders')).toBe(n);
  });

  it('refuses a merchant on another chain', async () => {
    const res = await h.request('POST', '/v1/orders', { key: p.secretKey, body: { ...base(), chain_id: 8453 } });
    expect(res.body.error.code).toBe('unsupported_chain');
  });

  it('needs a secret key: publishable 403, none 401', async () => {
    const pub = await h.request('POST', '/v1/orders', { key: p.publishableKey, body: base() });
    expect(pub.status).toBe(403);
    expect(pub.body.error.code).toBe('secret_key_required');
    const none = await h.request('POST', '/v1/orders', { body: base() });
    expect(none.status).toBe(401);
  });

  it('replays an order creation by Idempotency-Key instead of creating a second order', async () => {
    const body = base();
    const a = await h.request('POST', '/v1/orders', { key: p.secretKey, body, idem: 'order-idem-1' });
    const n = await h.count('orders');
    const b = await h.request('POST', '/v1/orders', { key: p.secretKey, body, idem: 'order-idem-1' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    expect(await h.count('orders')).toBe(n);
  });
});

describe('GET /v1/orders', () => {
  it('lists newest first with state filter and cursor pagination', async () => {
    const q = await h.platform();
    const qm = await merchant(h, q.secretKey);
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await order(h, q.secretKey, qm.external_id));
    const page1 = await h.request('GET', '/v1/orders?limit=2', { key: q.secretKey });
    expect(page1.body).toMatchObject({ object: 'list', has_more: true });
    expect(page1.body.data.map((o: { id: string }) => o.id)).toEqual([made[4].id, made[3].id]);
    const page2 = await h.request('GET', `/v1/orders?limit=2&cursor=${page1.body.next_cursor}`, { key: q.secretKey });
    expect(page2.body.data.map((o: { id: string }) => o.id)).toEqual([made[2].id, made[1].id]);
    const page3 = await h.request('GET', `/v1/orders?limit=2&cursor=${page2.body.next_cursor}`, { key: q.secretKey });
    expect(page3.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(page3.body.data).toHaveLength(1);
    const confirmed = await h.request('GET', '/v1/orders?state=confirmed', { key: q.secretKey });
    expect(confirmed.body.data).toEqual([]);
    const pending = await h.request('GET', '/v1/orders?state=pending_payment&limit=100', { key: q.secretKey });
    expect(pending.body.data).toHaveLength(5);
  });

  it('refuses bad list queries', async () => {
    for (const qs of ['state=paid', 'limit=0', 'limit=101', 'limit=abc', 'cursor=garbage', 'sort=asc']) {
      const res = await h.request('GET', `/v1/orders?${qs}`, { key: p.secretKey });
      expect(res.status, qs).toBe(422);
    }
  });

  it('summarises counts and gross volume', async () => {
    const q = await h.platform();
    const qm = await merchant(h, q.secretKey);
    const a = await order(h, q.secretKey, qm.external_id, { amount: '10.50' });
    await order(h, q.secretKey, qm.external_id, { amount: '3.00' });
    // Confirm one order as the indexer would (state + confirmed_at), to check the arithmetic.
    await h.db.updateTable('orders').set({ state: 'confirmed', confirmed_at: new Date() }).where('id', '=', a.id).execute();
    const s = await h.request('GET', '/v1/orders/summary', { key: q.secretKey });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ total: 2, pending: 1, confirmed: 1, gross_24h: '10.50' });
    expect(s.body.gross_daily).toHaveLength(14);
    expect(s.body.gross_daily.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), gross: '10.50', count: 1 });
  });

  it("answers 404 for another platform's order", async () => {
    const o = await order(h, p.secretKey, m.external_id);
    const other = await h.platform();
    const res = await h.request('GET', `/v1/orders/${o.id}`, { key: other.secretKey });
    expect(res.status).toBe(404);
    const list = await h.request('GET', '/v1/orders', { key: other.secretKey });
    expect(list.body.data).toEqual([]);
    const mine = await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey });
    expect(mine.body.id).toBe(o.id);
  });
});

describe('expiry', () => {
  it('keeps an order past its deadline on the wall clock pending, its order_no taken, until the indexed chain passes the deadline', async () => {
    const o = await order(h, p.secretKey, m.external_id);
    await h.db.updateTable('orders').set({ deadline_at: new Date(Date.now() - 1000) }).where('id', '=', o.id).execute();
    const read = await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey });
    expect(read.body.state).toBe('pending_payment');
    const dup = await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: o.order_no, chain_id: 84532, token: 'USDC', amount: '1.00' } });
    expect(dup.status).toBe(409);
    // Indexed up to a block before the deadline, or on another chain: nothing expires.
    expect(await h.services.orders.expireDue(84532, new Date(Date.now() - 5000))).toBe(0);
    expect(await h.services.orders.expireDue(8453, new Date(Date.now() + 60_000))).toBe(0);
    expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.state).toBe('pending_payment');
    const o2 = await order(h, p.secretKey, m.external_id);
    await h.db.updateTable('orders').set({ deadline_at: new Date(Date.now() - 1000) }).where('id', '=', o2.id).execute();
    expect(await h.services.orders.expireDue(84532, new Date())).toBeGreaterThanOrEqual(2);
    expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.state).toBe('expired');
    const row = await h.db.selectFrom('orders').select(['state', 'order_no_released']).where('id', '=', o2.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'expired', order_no_released: true });
    const reuse = await order(h, p.secretKey, m.external_id, { order_no: o2.order_no });
    expect(reuse.state).toBe('pending_payment');
  });
});
