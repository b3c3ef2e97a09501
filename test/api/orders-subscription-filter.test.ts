import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';

/** GET /v1/orders?subscription_id=…: a subscription's charges, server-side, with the other filters and the cursor. */
const MANAGER = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0' as const;
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let other: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };
let om: { external_id: string };
beforeAll(async () => {
  const fake = fakeChain();
  h = await createHarness({ ...fake, chains: fake.chains.map((c) => ({ ...c, subscriptionManager: MANAGER })) });
  p = await h.platform({ name: 'Acme SaaS' });
  other = await h.platform({ name: 'Other' });
  m = await merchant(h, p.secretKey);
  om = await merchant(h, other.secretKey);
});
afterAll(async () => { await h.close(); });

/** A subscription of `key`'s merchant, signed by a fresh wallet: active, its first charge queued as an order. */
async function active(key: string, merchantId: string) {
  const res = await h.request('POST', '/v1/subscriptions', { key, body: { merchant_id: merchantId, chain_id: 84532, token: 'USDC', amount: '9.99', interval: 'month' } });
  expect(res.status, res.text).toBe(201);
  const token = (res.body.url as string).split('/subscribe/')[1]!;
  const account = privateKeyToAccount(generatePrivateKey());
  const t = (await h.request('GET', `/v1/subscriptions/authorize/${token}`)).body.typed_data;
  const message = { ...t.message, payer: account.address, amount: BigInt(t.message.amount), salt: BigInt(t.message.salt) };
  const signature = await account.signTypedData({ domain: t.domain, types: t.types, primaryType: 'SpendPermission', message });
  const auth = await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: { payer: account.address, start: t.message.start, signature } });
  expect(auth.status, auth.text).toBe(200);
  return { id: res.body.id as string, token, payer: account.address };
}

/** The charge in flight fails (nothing moved) and dunning's retry is queued: one more order of the subscription. */
async function failAndRetry(subId: string) {
  const s = await h.db.selectFrom('subscriptions').select(['charge_order_id']).where('id', '=', subId).executeTakeFirstOrThrow();
  await h.db.transaction().execute((tx) => h.services.subscriptions.outcomeHandlers.subscription_charge(tx, {
    id: 'otx_x', chainId: 84532, purpose: 'subscription_charge', refId: s.charge_order_id!, outcome: 'rejected', error: 'ERC20InsufficientBalance', txHash: null, gasUsed: null, effectiveGasPrice: null,
  }));
  const due = await h.db.selectFrom('subscriptions').select('next_charge_at').where('id', '=', subId).executeTakeFirstOrThrow();
  expect(await h.services.subscriptions.chargeDue(84532, due.next_charge_at!)).toBe(1);
}

const list = (query: string, key = p.secretKey) => h.request('GET', `/v1/orders?${query}`, { key });

describe('GET /v1/orders?subscription_id=', () => {
  let a: Awaited<ReturnType<typeof active>>;
  let chargeIds: string[];
  beforeAll(async () => {
    a = await active(p.secretKey, m.external_id);
    await failAndRetry(a.id);
    await failAndRetry(a.id);
    // Noise: another subscription of the same merchant, and a plain order.
    await active(p.secretKey, m.external_id);
    await order(h, p.secretKey, m.external_id);
    chargeIds = (await h.db.selectFrom('orders').select('id').where('subscription_id', '=', a.id).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map((o) => o.id);
    expect(chargeIds).toHaveLength(3);
  });

  it('returns exactly the subscription\'s charges, newest first, each with subscription_id and subscription_period', async () => {
    const res = await list(`subscription_id=${a.id}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((o: any) => o.id)).toEqual(chargeIds);
    expect(res.body.has_more).toBe(false);
    for (const o of res.body.data) expect(o).toMatchObject({ subscription_id: a.id, subscription_period: 0, amount: '9.99' });
    expect(res.body.data.map((o: any) => o.state)).toEqual(['pending_payment', 'failed', 'failed']);
    // Plain orders say so.
    const plain = await list(`merchant_id=${m.external_id}`);
    expect(plain.body.data.find((o: any) => o.subscription_id === null)).toMatchObject({ subscription_period: null });
  });

  it('pages through the charges with the cursor, none twice, none missed', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const res = await list(`subscription_id=${a.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.body.data.map((o: any) => o.id));
      if (!res.body.has_more) break;
      cursor = res.body.next_cursor;
    }
    expect(seen).toEqual(chargeIds);
  });

  it('combines with state, merchant_id, q and the dates', async () => {
    expect((await list(`subscription_id=${a.id}&state=failed`)).body.data.map((o: any) => o.id)).toEqual(chargeIds.slice(1));
    expect((await list(`subscription_id=${a.id}&merchant_id=${m.external_id}&q=${a.payer}`)).body.data).toHaveLength(3);
    expect((await list(`subscription_id=${a.id}&merchant_id=someone-else`)).body.data).toEqual([]);
    expect((await list(`subscription_id=${a.id}&from=2000-01-01&to=2001-01-01`)).body.data).toEqual([]);
    expect((await list(`subscription_id=${a.id}&q=${chargeIds[0]}`)).body.data.map((o: any) => o.id)).toEqual([chargeIds[0]]);
  });

  it('another platform\'s subscription, or no subscription at all, is an empty list (as an unknown merchant_id is)', async () => {
    const theirs = await active(other.secretKey, om.external_id);
    expect((await list(`subscription_id=${theirs.id}`)).body).toMatchObject({ data: [], has_more: false });
    expect((await list(`subscription_id=${a.id}`, other.secretKey)).body).toMatchObject({ data: [], has_more: false });
    expect((await list('subscription_id=sub_00000000000000000000')).body.data).toEqual([]);
    expect((await list('merchant_id=nobody-here')).body.data).toEqual([]);
  });

  it('refuses a malformed id with 422 naming subscription_id', async () => {
    for (const bad of ['ord_5Qk2Xw9mBv0LcT7rJ1aN', 'sub_short', 'sub_5Qk2Xw9mBv0LcT7rJ1aN0', `${a.id}%27`, '', 'sub_5Qk2Xw9mBv0LcT7rJ1a%20']) {
      const res = await list(`subscription_id=${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'subscription_id' });
    }
  });
});
