import { recoverTypedDataAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { payOrderFromJson, payOrderTypes } from '../../src/chain/eip712.js';
import { ordersRepo } from '../../src/modules/orders/repo.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';

/**
 * After its first order for a merchant, an instance signs the next ones from the platform and merchant rows
 * as it last read them and inserts each only if those rows still say the same (one statement per order).
 * Whoever changes the rows (another instance, an operator in SQL), no order is ever signed past the change.
 */
let h: Harness;
let signer: string;
beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness(chain);
  signer = privateKeyToAccount(chain.config.signerPrivateKey!).address;
});
afterAll(async () => { await h.close(); });
afterEach(() => { vi.restoreAllMocks(); });

/** A platform (5 % fee) and merchant (10 % reserve) this instance has already signed an order for. */
async function warm() {
  const p = await h.platform({ platform_fee_bps: 500 });
  const m = await merchant(h, p.secretKey, { reserve_bps: 1000 });
  await order(h, p.secretKey, m.external_id);
  return { p, m };
}

const setMerchant = (id: string, set: Record<string, unknown>) => h.db.updateTable('merchants').set(set).where('id', '=', id).execute();

/** The wallets and split an order's signature commits to, recovered from its own typed data. */
async function signed(o: any) {
  const msg = payOrderFromJson(o.eip712);
  const by = await recoverTypedDataAddress({ domain: o.eip712.domain, types: payOrderTypes, primaryType: 'PayOrder', message: msg, signature: o.signature as Hex });
  expect(by).toBe(signer);
  return msg;
}

describe('orders signed from remembered rows', () => {
  it('reads neither the key nor the platform and merchant again while nothing changed', async () => {
    const { p, m } = await warm();
    const reads = vi.spyOn(ordersRepo, 'signingContext');
    const guarded = vi.spyOn(ordersRepo, 'insertIfCurrent');
    const o = await order(h, p.secretKey, m.external_id, { amount: '25.00' });
    expect(reads).not.toHaveBeenCalled();
    expect(guarded).toHaveBeenCalledTimes(1);
    expect(o.computed_split).toEqual({ service_fee: '250000', platform_fee: '1250000', merchant_gross: '23500000', reserve_hold: '2350000', merchant_available: '21150000' });
    const msg = await signed(o);
    expect([msg.serviceFee, msg.platformFee, msg.reserveHold, msg.amount]).toEqual([250000n, 1250000n, 2350000n, 25000000n]);
    // The answer is the stored row, byte for byte.
    const { payment_method: _method, payer: _payer, ...plain } = (await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body; // GET one's detail fields
    expect(JSON.stringify(plain)).toBe(JSON.stringify(o));
  });

  it('signs for the new wallet when the merchant wallet changed behind its back', async () => {
    const { p, m } = await warm();
    const wallet = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d').address;
    await setMerchant(m.id, { merchant_wallet: wallet });
    const reads = vi.spyOn(ordersRepo, 'signingContext');
    const o = await order(h, p.secretKey, m.external_id);
    expect(reads).toHaveBeenCalledTimes(1);
    expect((await signed(o)).merchant).toBe(wallet);
    const row = await h.db.selectFrom('orders').select(['merchant_wallet']).where('id', '=', o.id).executeTakeFirstOrThrow();
    expect(row.merchant_wallet).toBe(wallet);
    // …and remembers the new rows: the next order is one statement again.
    await order(h, p.secretKey, m.external_id);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('splits with the new rates when the platform fee or the reserve changed', async () => {
    const { p, m } = await warm();
    await h.db.updateTable('platforms').set({ platform_fee_bps: 200 }).where('id', '=', p.platformId).execute();
    await setMerchant(m.id, { reserve_bps: 0 });
    const o = await order(h, p.secretKey, m.external_id, { amount: '25.00' });
    expect(o.computed_split).toEqual({ service_fee: '250000', platform_fee: '500000', merchant_gross: '24250000', reserve_hold: '0', merchant_available: '24250000' });
    const msg = await signed(o);
    expect([msg.platformFee, msg.reserveHold]).toEqual([500000n, 0n]);
  });

  it('refuses an order for a merchant suspended behind its back, writing nothing', async () => {
    const { p, m } = await warm();
    await setMerchant(m.id, { state: 'suspended' });
    const before = await h.count('orders');
    const res = await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: 'after-suspend', chain_id: 84532, token: 'USDC', amount: '5.00' } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_state', param: 'merchant_id' });
    expect(await h.count('orders')).toBe(before);
    await setMerchant(m.id, { state: 'active' });
    expect((await order(h, p.secretKey, m.external_id)).state).toBe('pending_payment');
  });

  it('refuses an order for a merchant moved to another chain, writing nothing', async () => {
    const { p, m } = await warm();
    await setMerchant(m.id, { chain_id: 8453 });
    const before = await h.count('orders');
    const res = await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: 'after-move', chain_id: 84532, token: 'USDC', amount: '5.00' } });
    expect(res.status).toBe(422);
    expect(res.body.error.param).toBe('chain_id');
    expect(await h.count('orders')).toBe(before);
  });

  it('still answers a reused order_no with 409 conflict, and an Idempotency-Key still replays', async () => {
    const { p, m } = await warm();
    const body = { merchant_id: m.external_id, order_no: 'dup-warm', chain_id: 84532, token: 'USDC', amount: '3.00' };
    expect((await h.request('POST', '/v1/orders', { key: p.secretKey, body })).status).toBe(201);
    const dup = await h.request('POST', '/v1/orders', { key: p.secretKey, body });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'conflict', param: 'order_no' });
    const idem = { ...body, order_no: 'idem-warm' };
    const first = await h.request('POST', '/v1/orders', { key: p.secretKey, body: idem, idem: 'warm-1' });
    const again = await h.request('POST', '/v1/orders', { key: p.secretKey, body: idem, idem: 'warm-1' });
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await h.db.selectFrom('orders').select('id').where('order_no', '=', 'idem-warm').execute()).toHaveLength(1);
  });
});
