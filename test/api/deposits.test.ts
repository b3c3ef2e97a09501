import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositPayOrder, depositTermsOf, predictDepositAddress } from '../../src/chain/deposit-terms.js';
import { payOrderFromJson, signPayOrder } from '../../src/chain/eip712.js';
import { FAKE_ROUTER, FAKE_USDC, fakeChain, merchant } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';

const FAKE_FACTORY = '0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9' as const;
const REFUND = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const;
const OTHER = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' as const;

let h: Harness;
let signerKey: `0x${string}`;
let p: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };
let seq = 0;
beforeAll(async () => {
  const fake = fakeChain();
  signerKey = fake.config.signerPrivateKey!;
  h = await createHarness({ ...fake, chains: [{ ...fake.chains[0]!, depositFactory: FAKE_FACTORY }] });
  p = await h.platform({ platform_fee_bps: 300 });
  m = await merchant(h, p.secretKey, { reserve_bps: 1000 });
});
afterAll(async () => { await h.close(); });

const order = async (extra: Record<string, unknown> = {}) => {
  const res = await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: `dep_${++seq}`, chain_id: 84532, token: 'USDC', amount: '25.00', ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const session = async (extra: Record<string, unknown> = {}) => {
  const res = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: `dep_${++seq}`, chain_id: 84532, token: 'USDC', amount: '12.50', ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body;
};
const post = (id: string, refund: string, key = p.secretKey) => h.request('POST', `/v1/orders/${id}/deposit_address`, { key, body: { refund_address: refund } });

describe('POST /v1/orders/{id}/deposit_address', () => {
  it('orders start without a deposit: null addresses, nothing received, the whole amount due', async () => {
    const o = await order();
    expect(o).toMatchObject({ deposit_address: null, refund_address: null, amount_received: '0', amount_due: '25000000' });
    const read = await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey });
    expect(read.body).toMatchObject({ deposit_address: null, amount_received: '0', amount_due: '25000000', payment_method: null });
  });

  it('sets the factory\'s address for the order\'s terms and refund address, with a signature over payer = that address', async () => {
    const o = await order();
    const res = await post(o.id, REFUND.toLowerCase());
    expect(res.status, res.text).toBe(200);
    const terms = depositTermsOf(payOrderFromJson(o.eip712));
    const expected = predictDepositAddress({ factory: FAKE_FACTORY, router: FAKE_ROUTER, terms, refundTo: REFUND });
    expect(res.body).toMatchObject({ id: o.id, deposit_address: expected, refund_address: REFUND, amount_received: '0', amount_due: '25000000' });
    const row = await h.db.selectFrom('deposits').selectAll().where('order_id', '=', o.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ address: expected.toLowerCase(), refund_to: REFUND, factory: FAKE_FACTORY, deadline: terms.deadline });
    expect(row.signature).toBe(await signPayOrder(privateKeyToAccount(signerKey), 84532, FAKE_ROUTER, depositPayOrder(terms, expected)));
    // The list shows it too.
    const list = await h.request('GET', '/v1/orders?limit=5', { key: p.secretKey });
    expect(list.body.data.find((x: { id: string }) => x.id === o.id)).toMatchObject({ deposit_address: expected });
  });

  it('is idempotent for the same refund address and refuses another one with 409', async () => {
    const o = await order();
    const first = await post(o.id, REFUND);
    const again = await post(o.id, REFUND.toLowerCase());
    expect(again.status).toBe(200);
    expect(again.body.deposit_address).toBe(first.body.deposit_address);
    const other = await post(o.id, OTHER);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('deposit_refund_address_mismatch');
    expect(await h.db.selectFrom('deposits').select('order_id').where('order_id', '=', o.id).execute()).toHaveLength(1);
  });

  it('refuses bad refund addresses with 400 and changes nothing', async () => {
    const o = await order();
    for (const bad of ['0xabc', 'not an address', '0x0000000000000000000000000000000000000000', FAKE_ROUTER, FAKE_FACTORY, FAKE_USDC, '0x70997970c51812dc3a010C7d01b50e0d17dc79C8']) {
      const res = await post(o.id, bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('invalid_refund_address');
    }
    const read = await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey });
    expect(read.body.deposit_address).toBeNull();
    expect(await h.db.selectFrom('deposits').select('order_id').where('order_id', '=', o.id).execute()).toHaveLength(0);
  });

  it('refuses orders that are not open, and charge-later orders, with 409 order_not_payable', async () => {
    const paid = await order();
    await h.db.updateTable('orders').set({ state: 'confirmed', confirmed_at: new Date() }).where('id', '=', paid.id).execute();
    const late = await order();
    await h.db.updateTable('orders').set({ deadline_at: new Date(Date.now() - 1000) }).where('id', '=', late.id).execute();
    const expired = await order();
    await h.db.updateTable('orders').set({ state: 'expired', expired_at: new Date() }).where('id', '=', expired.id).execute();
    const manual = await order({ capture_method: 'manual' });
    for (const o of [paid, late, expired, manual]) {
      const res = await post(o.id, REFUND);
      expect(res.status, o.id).toBe(409);
      expect(res.body.error.code).toBe('order_not_payable');
    }
  });

  it('is 404 for another platform\'s order and needs a key', async () => {
    const o = await order();
    const other = await h.platform();
    expect((await post(o.id, REFUND, other.secretKey)).status).toBe(404);
    expect((await h.request('POST', `/v1/orders/${o.id}/deposit_address`, { body: { refund_address: REFUND } })).status).toBe(401);
  });

  it('is 409 deposits_unavailable on a chain without a DepositFactory', async () => {
    const fake = fakeChain();
    const h2 = await createHarness(fake);
    try {
      const p2 = await h2.platform();
      const m2 = await merchant(h2, p2.secretKey);
      const o = await h2.request('POST', '/v1/orders', { key: p2.secretKey, body: { merchant_id: m2.external_id, order_no: 'x1', chain_id: 84532, token: 'USDC', amount: '1.00' } });
      const res = await h2.request('POST', `/v1/orders/${o.body.id}/deposit_address`, { key: p2.secretKey, body: { refund_address: REFUND } });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('deposits_unavailable');
    } finally {
      await h2.close();
    }
  });
});

describe('POST /v1/checkout/sessions/{token}/deposit_address (public)', () => {
  it('sets the deposit on the session\'s order and answers the public read showing it', async () => {
    const s = await session();
    const before = await h.request('GET', `/v1/checkout/sessions/${s.session_token}`);
    expect(before.body.order).toMatchObject({ deposit_address: null, refund_address: null, amount_received: '0', amount_due: '12500000' });
    const res = await h.request('POST', `/v1/checkout/sessions/${s.session_token}/deposit_address`, { body: { refund_address: REFUND } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.order.deposit_address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(res.body.order).toMatchObject({ id: s.order_id, refund_address: REFUND, amount_received: '0', amount_due: '12500000' });
    const after = await h.request('GET', `/v1/checkout/sessions/${s.session_token}`);
    expect(after.body.order.deposit_address).toBe(res.body.order.deposit_address);
    const other = await h.request('POST', `/v1/checkout/sessions/${s.session_token}/deposit_address`, { body: { refund_address: OTHER } });
    expect(other.status).toBe(409);
  });

  it('is 404 for an unknown token', async () => {
    const res = await h.request('POST', '/v1/checkout/sessions/cs_live_nope/deposit_address', { body: { refund_address: REFUND } });
    expect(res.status).toBe(404);
  });

  it('late_payment accept pushes the deposit\'s on-chain deadline past expiry by the grace window; return keeps it', async () => {
    const accept = await session({ late_payment: 'accept' });
    expect(accept.late_payment).toBe('accept');
    const plain = await session();
    expect(plain.late_payment).toBe('return');
    for (const s of [accept, plain]) await h.request('POST', `/v1/checkout/sessions/${s.session_token}/deposit_address`, { body: { refund_address: REFUND } });
    const rows = await h.db.selectFrom('deposits as d').innerJoin('orders as o', 'o.id', 'd.order_id').select(['o.id', 'd.deadline', 'o.deadline_at']).where('o.id', 'in', [accept.order_id, plain.order_id]).execute();
    const of = (id: string) => rows.find((r) => r.id === id)!;
    const signed = (id: string) => BigInt(Math.floor(of(id).deadline_at.getTime() / 1000));
    expect(of(accept.order_id).deadline).toBe(signed(accept.order_id) + BigInt(h.config.depositLateGraceSeconds));
    expect(of(plain.order_id).deadline).toBe(signed(plain.order_id));
    const bad = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: 'lp_bad', chain_id: 84532, token: 'USDC', amount: '1.00', late_payment: 'keep' } });
    expect(bad.status).toBe(422);
  });
});

