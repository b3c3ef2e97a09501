import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeFunctionData, erc20Abi, hashDomain, keccak256, maxUint48, stringToHex, zeroAddress, type Hex } from 'viem';
import { eip712DomainType } from '../../src/chain/eip712.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { subscriptionManagerAbi } from '../../src/chain/subscription-manager-abi.js';
import { computeSplit } from '../../src/modules/orders/split.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { FAKE_USDC, fakeChain, merchant } from '../helpers/factories.js';

const MANAGER = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0' as const;
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let other: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };
beforeAll(async () => {
  const fake = fakeChain();
  h = await createHarness({ ...fake, chains: fake.chains.map((c) => ({ ...c, subscriptionManager: MANAGER })) });
  p = await h.platform({ name: 'Acme SaaS', platform_fee_bps: 300 });
  other = await h.platform({ name: 'Other' });
  m = await merchant(h, p.secretKey, { name: 'Blue Bottle Goods', reserve_bps: 2000 });
});
afterAll(async () => { await h.close(); });

const body = (extra: Record<string, unknown> = {}) => ({ merchant_id: m.external_id, chain_id: 84532, token: 'USDC', amount: '9.99', interval: 'month', ...extra });
const create = async (extra: Record<string, unknown> = {}) => {
  const res = await h.request('POST', '/v1/subscriptions', { key: p.secretKey, body: body(extra) });
  expect(res.status, res.text).toBe(201);
  return { sub: res.body, token: (res.body.url as string).split('/subscribe/')[1]! };
};

/** Signs the typed data the public read gives, as a wallet would. */
async function signed(token: string, key: Hex = generatePrivateKey()) {
  const account = privateKeyToAccount(key);
  const read = await h.request('GET', `/v1/subscriptions/authorize/${token}`);
  const t = read.body.typed_data;
  const message = { ...t.message, payer: account.address, amount: BigInt(t.message.amount), salt: BigInt(t.message.salt) };
  const signature = await account.signTypedData({ domain: t.domain, types: t.types, primaryType: 'SpendPermission', message });
  return { account, read: read.body, body: { payer: account.address, start: t.message.start, signature } };
}

describe('POST /v1/subscriptions', () => {
  it('creates an incomplete subscription with a hosted link, frozen split and subscription.created', async () => {
    const { sub, token } = await create({ metadata: { plan: 'pro' }, max_periods: 3 });
    expect(sub).toMatchObject({ object: 'subscription', state: 'incomplete', amount: '9.99', interval: 'month', interval_count: 1, period_seconds: 2_592_000, max_periods: 3, current_period_end: null, manager_address: MANAGER, metadata: { plan: 'pro' } });
    expect(sub.id).toMatch(/^sub_[0-9A-Za-z]{20}$/);
    expect(token).toMatch(/^sub_live_[0-9A-Za-z]{32}$/);
    expect(sub.url).toBe(`${h.config.dashboardUrl}/subscribe/${token}`);
    const split = computeSplit(9_990_000n, h.config.serviceFeeBps, 300, 2000);
    expect(sub.computed_split).toEqual({ service_fee: `${split.serviceFee}`, platform_fee: `${split.platformFee}`, merchant_gross: `${split.merchantGross}`, reserve_hold: `${split.reserveHold}`, merchant_available: `${split.merchantAvailable}` });
    const events = await h.request('GET', '/v1/events?type=subscription.created', { key: p.secretKey });
    expect(events.body.data.some((e: any) => e.data.object.id === sub.id)).toBe(true);
    const got = await h.request('GET', `/v1/subscriptions/${sub.id}`, { key: p.secretKey });
    expect(got.body).toEqual({ ...sub, url: null });
  });

  it('refuses bad input with 4xx and writes nothing', async () => {
    const before = await h.count('subscriptions');
    for (const extra of [
      { interval: 'hour' }, { interval_count: 13 }, { interval_count: 0 }, { amount: '0' }, { amount: '1.1234567' }, { token: 'DAI' }, { chain_id: 1 },
      { max_periods: 0 }, { expires_in_seconds: 10 }, { expires_in_seconds: 8 * 86400 }, { payer_address: '0xabc' }, { success_url: 'javascript:x' }, { surprise: 1 },
    ]) {
      const res = await h.request('POST', '/v1/subscriptions', { key: p.secretKey, body: body(extra) });
      expect(res.status, JSON.stringify(extra)).toBe(422);
    }
    expect((await h.request('POST', '/v1/subscriptions', { key: p.secretKey, body: body({ merchant_id: 'nobody' }) })).status).toBe(404);
    expect((await h.request('POST', '/v1/subscriptions', { body: body() })).status).toBe(401);
    expect((await h.request('POST', '/v1/subscriptions', { key: p.publishableKey, body: body() })).status).toBe(403);
    expect(await h.count('subscriptions')).toBe(before);
  });

  it('answers a repeated Idempotency-Key with the same subscription (one row)', async () => {
    const before = await h.count('subscriptions');
    const a = await h.request('POST', '/v1/subscriptions', { key: p.secretKey, body: body(), idem: 'sub-idem-1' });
    const b = await h.request('POST', '/v1/subscriptions', { key: p.secretKey, body: body(), idem: 'sub-idem-1' });
    expect(a.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(await h.count('subscriptions')).toBe(before + 1);
  });
});

describe('GET /v1/subscriptions', () => {
  it('lists newest first with filters and cursor pagination; another platform sees none of them (404 by id)', async () => {
    const a = await create();
    const b = await create();
    const page1 = await h.request('GET', `/v1/subscriptions?limit=1&merchant_id=${m.external_id}&state=incomplete`, { key: p.secretKey });
    expect(page1.body).toMatchObject({ object: 'list', has_more: true });
    expect(page1.body.data[0].id).toBe(b.sub.id);
    const page2 = await h.request('GET', `/v1/subscriptions?limit=1&cursor=${page1.body.next_cursor}`, { key: p.secretKey });
    expect(page2.body.data[0].id).toBe(a.sub.id);
    const theirs = await h.request('GET', '/v1/subscriptions', { key: other.secretKey });
    expect(theirs.body.data).toEqual([]);
    expect((await h.request('GET', `/v1/subscriptions/${a.sub.id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('POST', `/v1/subscriptions/${a.sub.id}/cancel`, { key: other.secretKey, body: {} })).status).toBe(404);
    expect((await h.request('GET', '/v1/subscriptions?state=paused', { key: p.secretKey })).status).toBe(422);
  });
});

describe('GET /v1/subscriptions/authorize/{token}', () => {
  it('gives the SpendPermission typed data, the manager and router and the allowance with an approve call', async () => {
    const { sub, token } = await create({ max_periods: 3, interval: 'week', interval_count: 2 });
    const r = await h.request('GET', `/v1/subscriptions/authorize/${token}`);
    expect(r.status).toBe(200);
    const t = r.body.typed_data;
    expect(t.domain).toEqual({ name: 'Trisettle Subscriptions', version: '1', chainId: 84532, verifyingContract: MANAGER });
    const start = t.message.start as number;
    expect(Math.abs(start - Date.now() / 1000)).toBeLessThan(5);
    expect(t.message).toMatchObject({
      token: FAKE_USDC, amount: '9990000', period: 2 * 604_800, end: start + 3 * 2 * 604_800, serviceFeeBps: h.config.serviceFeeBps, platformFeeBps: 300, reserveBps: 2000,
      salt: BigInt(keccak256(stringToHex(sub.id))).toString(),
    });
    expect(r.body.allowance).toMatchObject({ spender: MANAGER, amount: '29970000', periods_covered: 3 });
    const approve = decodeFunctionData({ abi: erc20Abi, data: r.body.allowance.approve.data });
    expect(approve.args).toEqual([MANAGER, 29_970_000n]);
    expect(JSON.stringify(r.body)).not.toContain(p.platformId);
    expect((await h.request('GET', '/v1/subscriptions/authorize/sub_live_nope')).status).toBe(404);
  });

  it('without max_periods: no end (max uint48) and an allowance of 12 periods', async () => {
    const { token } = await create();
    const r = await h.request('GET', `/v1/subscriptions/authorize/${token}`);
    expect(r.body.typed_data.message.end).toBe(Number(maxUint48));
    expect(r.body.allowance).toMatchObject({ amount: (9_990_000n * 12n).toString(), periods_covered: 12 });
  });
});

describe('POST /v1/subscriptions/authorize/{token}', () => {
  it('verifies the payer\'s signature, activates and queues the first charge as an order in one transaction', async () => {
    const { sub, token } = await create({ max_periods: 6 });
    const s = await signed(token);
    const res = await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: s.body });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: sub.id, state: 'active', payer: s.account.address, current_period_start: new Date(s.body.start * 1000).toISOString(), current_period_end: new Date((s.body.start + 2_592_000) * 1000).toISOString() });
    const orders = await h.db.selectFrom('orders').selectAll().where('subscription_id', '=', sub.id).execute();
    expect(orders).toHaveLength(1);
    const o = orders[0]!;
    expect(o).toMatchObject({ state: 'pending_payment', amount: 9_990_000n, payer_address: s.account.address, subscription_period: 0 });
    const split = computeSplit(9_990_000n, h.config.serviceFeeBps, 300, 2000);
    expect([o.service_fee, o.platform_fee, o.reserve_hold]).toEqual([split.serviceFee, split.platformFee, split.reserveHold]);
    const tx = await (h.db as any).selectFrom('operator_txs').selectAll().where('purpose', '=', 'subscription_charge').where('ref_id', '=', o.id).executeTakeFirstOrThrow();
    expect(tx.to_address).toBe(MANAGER);
    const call = decodeFunctionData({ abi: subscriptionManagerAbi, data: tx.calldata as Hex });
    expect(call.functionName).toBe('charge');
    expect(call.args![0]).toMatchObject({ payer: s.account.address, amount: 9_990_000n, start: s.body.start, end: s.body.start + 6 * 2_592_000 });
    expect(call.args![1]).toBe(s.body.signature);
    expect(call.args![2]).toBe(o.onchain_id);
    const again = await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: s.body });
    expect(again.status).toBe(409);
    expect(await h.db.selectFrom('orders').select('id').where('subscription_id', '=', sub.id).execute()).toHaveLength(1);
  });

  it('the public read gives the signed permission (revoke\'s argument) and the schedule only once the payer has signed', async () => {
    const { token } = await create({ max_periods: 2 });
    const s = await signed(token);
    expect(s.read.authorized).toBeNull();
    expect((await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: s.body })).status).toBe(200);
    const after = (await h.request('GET', `/v1/subscriptions/authorize/${token}`)).body;
    const t = s.read.typed_data.message;
    expect(after.state).toBe('active');
    expect(after.authorized.permission).toEqual({ ...t, payer: s.account.address });
    expect(after.authorized).toMatchObject({ payer: s.account.address, periods_charged: 0, cancel_reason: null, current_period_end: new Date((s.body.start + 2_592_000) * 1000).toISOString() });
    const digest = await import('../../src/modules/subscriptions/permission.js').then((m) => m.permissionDigest(84532, MANAGER, m.permissionFromJson(after.authorized.permission)));
    expect(after.authorized.permission_hash).toBe(digest.toLowerCase());
  });

  it('refuses after 10 refused signatures without checking (429), the wrong payer, a stale start and an expired link', async () => {
    const { sub, token } = await create({ payer_address: privateKeyToAccount(generatePrivateKey()).address });
    const locked = await signed(token);
    const wrongPayer = await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: locked.body });
    expect(wrongPayer.status).toBe(422);

    const free = await create();
    const s = await signed(free.token);
    const stale = await h.request('POST', `/v1/subscriptions/authorize/${free.token}`, { body: { ...s.body, start: s.body.start - 7200 } });
    expect(stale.status).toBe(422);
    // Another wallet's signature: not the payer's by ECDSA, so the contract-wallet check needs the chain; unreachable
    // here, it is 503 and counts nothing (the anvil flow tests cover the 422 of a contract wallet's refusal).
    const forged = await signed(free.token);
    const down = await h.request('POST', `/v1/subscriptions/authorize/${free.token}`, { body: { ...s.body, signature: forged.body.signature } });
    expect(down.status).toBe(503);
    expect((await h.db.selectFrom('subscriptions').select('authorize_failures').where('id', '=', free.sub.id).executeTakeFirstOrThrow()).authorize_failures).toBe(0);
    await h.db.updateTable('subscriptions').set({ authorize_failures: 10 }).where('id', '=', free.sub.id).execute();
    const blocked = await h.request('POST', `/v1/subscriptions/authorize/${free.token}`, { body: s.body });
    expect(blocked.status).toBe(429);

    const late = await create();
    const ls = await signed(late.token);
    await h.db.updateTable('subscriptions').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', late.sub.id).execute();
    expect((await h.request('POST', `/v1/subscriptions/authorize/${late.token}`, { body: ls.body })).status).toBe(409);
    expect((await h.request('POST', `/v1/subscriptions/authorize/${late.token}`, { body: { ...ls.body, extra: 1 } })).status).toBe(422);
    const swept = await h.services.subscriptions.expireLinks(84532, new Date());
    expect(swept).toBeGreaterThanOrEqual(1);
    expect((await h.request('GET', `/v1/subscriptions/${late.sub.id}`, { key: p.secretKey })).body.state).toBe('expired');
    expect((await h.request('GET', `/v1/subscriptions/${sub.id}`, { key: p.secretKey })).body.state).toBe('incomplete');
  });
});

/** An activated subscription and its first charge's order. */
async function active(extra: Record<string, unknown> = {}) {
  const { sub, token } = await create(extra);
  const s = await signed(token);
  const res = await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: s.body });
  expect(res.status, res.text).toBe(200);
  const order = await h.db.selectFrom('orders').selectAll().where('subscription_id', '=', sub.id).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  return { sub: res.body, start: s.body.start as number, order, token };
}

const sub = async (id: string) => (await h.request('GET', `/v1/subscriptions/${id}`, { key: p.secretKey })).body;
const outcome = (refId: string, o: 'rejected' | 'reverted' | 'success') => h.db.transaction().execute((tx) =>
  h.services.subscriptions.outcomeHandlers.subscription_charge(tx, { id: 'otx_x', chainId: 84532, purpose: 'subscription_charge', refId, outcome: o, error: o === 'success' ? null : 'ERC20InsufficientBalance', txHash: null, gasUsed: null, effectiveGasPrice: null }));
const paid = (o: { onchain_id: string; payer_address: string | null; merchant_wallet: string; platform_wallet: string; amount: bigint; service_fee: bigint; platform_fee: bigint; reserve_hold: bigint }, at: Date) =>
  h.db.transaction().execute((tx) => h.services.chainEvents.OrderPaid(tx, [{
    chainId: 84532, orderId: o.onchain_id as Hex, payer: o.payer_address as Hex, merchant: o.merchant_wallet as Hex, token: FAKE_USDC, amount: o.amount,
    serviceFee: o.service_fee, platformFee: o.platform_fee, reserveHold: o.reserve_hold, platform: o.platform_wallet as Hex, releaseAfter: 0n,
    txHash: `0x${'ab'.repeat(32)}`, blockNumber: 10n, blockTime: at,
  }]));
const eventsOf = async (id: string) => (await h.request('GET', '/v1/events?limit=100', { key: p.secretKey })).body.data.filter((e: any) => e.data.object.id === id).map((e: any) => e.type);

describe('charges, dunning and the chain\'s events', () => {
  it('a confirmed charge schedules the next one at start + period; a failed one fails its order and dunning retries, then recovers', async () => {
    const { sub: s, start, order } = await active();
    await paid(order, new Date((start + 5) * 1000));
    let now = await sub(s.id);
    expect(now).toMatchObject({ state: 'active', periods_charged: 1, failed_attempts: 0, next_charge_at: new Date((start + 2_592_000) * 1000).toISOString() });
    // Not yet due on the chain clock: nothing is queued.
    expect(await h.services.subscriptions.chargeDue(84532, new Date((start + 2_592_000 - 1) * 1000))).toBe(0);
    expect(await h.services.subscriptions.chargeDue(84532, new Date((start + 2_592_000) * 1000))).toBe(1);
    const second = await h.db.selectFrom('orders').selectAll().where('subscription_id', '=', s.id).where('subscription_period', '=', 1).executeTakeFirstOrThrow();
    await outcome(second.id, 'rejected');
    expect((await h.db.selectFrom('orders').select('state').where('id', '=', second.id).executeTakeFirstOrThrow()).state).toBe('failed');
    now = await sub(s.id);
    expect(now).toMatchObject({ state: 'past_due', failed_attempts: 1 });
    const retryAt = new Date(now.next_charge_at).getTime();
    expect(Math.abs(retryAt - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    expect(await h.services.subscriptions.chargeDue(84532, new Date(retryAt))).toBe(1);
    const retry = await h.db.selectFrom('orders').selectAll().where('subscription_id', '=', s.id).where('state', '=', 'pending_payment').executeTakeFirstOrThrow();
    await paid(retry, new Date((start + 2_592_000 + 3_700) * 1000));
    expect(await sub(s.id)).toMatchObject({ state: 'active', periods_charged: 2, failed_attempts: 0, next_charge_at: new Date((start + 2 * 2_592_000) * 1000).toISOString() });
    expect((await eventsOf(s.id)).sort()).toEqual(['subscription.activated', 'subscription.activated', 'subscription.created', 'subscription.past_due']);
  });

  it('after the third retry fails: canceled (payment_failed) and the permission revoked by the operator', async () => {
    const { sub: s, order } = await active();
    await outcome(order.id, 'reverted');
    for (let i = 0; i < 3; i++) {
      const due = await sub(s.id);
      expect(due.state).toBe('past_due');
      expect(await h.services.subscriptions.chargeDue(84532, new Date(due.next_charge_at))).toBe(1);
      const o = await h.db.selectFrom('orders').select('id').where('subscription_id', '=', s.id).where('state', '=', 'pending_payment').executeTakeFirstOrThrow();
      await outcome(o.id, 'rejected');
    }
    expect(await sub(s.id)).toMatchObject({ state: 'canceled', cancel_reason: 'payment_failed', next_charge_at: null });
    const revoke = await (h.db as any).selectFrom('operator_txs').selectAll().where('purpose', '=', 'subscription_revoke').where('ref_id', '=', s.id).execute();
    expect(revoke).toHaveLength(1);
    expect(decodeFunctionData({ abi: subscriptionManagerAbi, data: revoke[0]!.calldata as Hex }).args).toEqual([s.permission_hash]);
    expect(await h.db.selectFrom('orders').select('id').where('subscription_id', '=', s.id).where('state', '=', 'failed').execute()).toHaveLength(4);
  });

  it('the payer\'s on-chain revocation cancels it (payer_revoked); a later charge outcome does not dun it', async () => {
    const { sub: s, order } = await active();
    await h.db.transaction().execute((tx) => h.services.chainEvents.PermissionRevoked(tx, {
      chainId: 84532, permissionHash: s.permission_hash, payer: s.payer, by: s.payer, txHash: `0x${'cd'.repeat(32)}`, blockTime: new Date(),
    }));
    expect(await sub(s.id)).toMatchObject({ state: 'canceled', cancel_reason: 'payer_revoked' });
    await outcome(order.id, 'reverted');
    expect(await sub(s.id)).toMatchObject({ state: 'canceled', cancel_reason: 'payer_revoked', failed_attempts: 0 });
    await h.services.subscriptions.chargeDue(84532, new Date(Date.now() + 400 * 86_400_000));
    expect(await h.db.selectFrom('orders').select('id').where('subscription_id', '=', s.id).execute()).toHaveLength(1);
  });

  it('cancel at period end charges no more and cancels when the period ends; cancel at once revokes on chain', async () => {
    const { sub: s, start, order } = await active();
    await paid(order, new Date((start + 1) * 1000));
    const res = await h.request('POST', `/v1/subscriptions/${s.id}/cancel`, { key: p.secretKey, body: { at_period_end: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'active', cancel_at_period_end: true });
    expect(await h.services.subscriptions.chargeDue(84532, new Date((start + 2_592_000) * 1000))).toBe(1);
    expect(await sub(s.id)).toMatchObject({ state: 'canceled', cancel_reason: 'canceled_by_platform' });
    expect(await h.db.selectFrom('orders').select('id').where('subscription_id', '=', s.id).execute()).toHaveLength(1);

    const now = await active();
    const c = await h.request('POST', `/v1/subscriptions/${now.sub.id}/cancel`, { key: p.secretKey, body: {} });
    expect(c.body).toMatchObject({ state: 'canceled', cancel_reason: 'canceled_by_platform' });
    expect(await (h.db as any).selectFrom('operator_txs').select('id').where('purpose', '=', 'subscription_revoke').where('ref_id', '=', now.sub.id).execute()).toHaveLength(1);
    expect((await h.request('POST', `/v1/subscriptions/${now.sub.id}/cancel`, { key: p.secretKey, body: {} })).status).toBe(409);
    expect(await eventsOf(now.sub.id)).toContain('subscription.canceled');
  });
});

describe('the public read once signed: the charges so far', () => {
  it('lists the charges newest first with public fields only (no order ids, nothing of the platform\'s)', async () => {
    const { token } = await create();
    expect((await h.request('GET', `/v1/subscriptions/authorize/${token}`)).body.authorized).toBeNull();
    const s = await signed(token);
    expect((await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: s.body })).status).toBe(200);
    const first = await h.db.selectFrom('orders').selectAll().where('payer_address', '=', s.account.address).executeTakeFirstOrThrow();
    const start = s.body.start as number;
    await paid(first, new Date((start + 5) * 1000));
    expect(await h.services.subscriptions.chargeDue(84532, new Date((start + 2_592_000) * 1000))).toBe(1);
    const second = await h.db.selectFrom('orders').selectAll().where('subscription_id', '=', first.subscription_id).where('subscription_period', '=', 1).executeTakeFirstOrThrow();
    await outcome(second.id, 'rejected');
    const read = await h.request('GET', `/v1/subscriptions/authorize/${token}`);
    expect(read.body.authorized.charges).toEqual([
      { period: 1, amount: '9.99', state: 'failed', created_at: second.created_at.toISOString(), paid_at: null, tx_hash: null },
      { period: 0, amount: '9.99', state: 'confirmed', created_at: first.created_at.toISOString(), paid_at: expect.any(String), tx_hash: `0x${'ab'.repeat(32)}` },
    ]);
    const text = JSON.stringify(read.body);
    for (const secret of [first.id, second.id, first.onchain_id, p.platformId, first.order_no]) expect(text).not.toContain(secret);
  });

  it('shows at most the newest 24', async () => {
    const { token, order } = await active();
    const rows = Array.from({ length: 30 }, (_, i) => ({
      ...order, id: `ord_cap${String(i).padStart(17, '0')}`, order_no: `cap-${i}-${order.order_no}`, onchain_id: `0x${(i + 1).toString(16).padStart(64, '0')}`,
      state: 'failed' as const, created_at: new Date(order.created_at.getTime() - (i + 1) * 1000),
    }));
    await h.db.insertInto('orders').values(rows as any).execute();
    const charges = (await h.request('GET', `/v1/subscriptions/authorize/${token}`)).body.authorized.charges;
    expect(charges).toHaveLength(24);
    expect(charges[0]).toMatchObject({ state: 'pending_payment', created_at: order.created_at.toISOString() });
    expect(charges[23].created_at).toBe(rows[22]!.created_at.toISOString());
  });
});

describe('the permit\'s nonce (?payer=)', () => {
  it('fills owner and the token\'s nonces(payer) with one RPC read before activation; without it the nonce is a placeholder', async () => {
    const client = h.services.chains.get(84532).publicClient;
    const domain = { name: 'USDC', version: '2', chainId: 84532, verifyingContract: FAKE_USDC };
    const separator = hashDomain({ domain: { ...domain, chainId: 84532n }, types: { EIP712Domain: eip712DomainType } });
    let nonce: bigint | Error = 7n;
    const spy = vi.spyOn(client, 'readContract').mockImplementation((async (a: { functionName: string }) => {
      if (a.functionName === 'nonces') { if (nonce instanceof Error) throw nonce; return nonce; }
      return ({ name: domain.name, version: domain.version, DOMAIN_SEPARATOR: separator } as Record<string, unknown>)[a.functionName];
    }) as any);
    const nonceReads = () => spy.mock.calls.filter(([a]) => (a as { functionName: string }).functionName === 'nonces');
    try {
      const { token } = await create();
      const payer = privateKeyToAccount(generatePrivateKey()).address;
      const plain = (await h.request('GET', `/v1/subscriptions/authorize/${token}`)).body.allowance.permit;
      expect(plain).toMatchObject({ nonce_filled: false, typed_data: { domain, primary_type: 'Permit', message: { owner: zeroAddress, nonce: '0', spender: MANAGER } } });
      expect(nonceReads()).toHaveLength(0);

      const filled = (await h.request('GET', `/v1/subscriptions/authorize/${token}?payer=${payer.toLowerCase()}`)).body;
      expect(filled.allowance.permit).toMatchObject({ nonce_filled: true, typed_data: { message: { owner: payer, nonce: '7' } } });
      expect(filled.typed_data.message.payer).toBe(payer);
      expect(nonceReads()).toHaveLength(1);
      expect(nonceReads()[0]![0]).toMatchObject({ address: FAKE_USDC, args: [payer] });

      nonce = new Error('rpc down');
      const down = (await h.request('GET', `/v1/subscriptions/authorize/${token}?payer=${payer}`));
      expect(down.status).toBe(200);
      expect(down.body.allowance.permit).toMatchObject({ nonce_filled: false, typed_data: { message: { owner: payer, nonce: '0' } } });

      // Once authorized the permit is of no use: no RPC read for it.
      nonce = 7n;
      const s = await signed(token);
      expect((await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: s.body })).status).toBe(200);
      const before = nonceReads().length;
      const after = (await h.request('GET', `/v1/subscriptions/authorize/${token}?payer=${s.account.address}`)).body;
      expect(after.allowance.permit.nonce_filled).toBe(false);
      expect(nonceReads()).toHaveLength(before);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a malformed payer with 422 naming it', async () => {
    const { token } = await create();
    for (const bad of ['0xabc', zeroAddress, 'alice', `0x${'A'.repeat(40)}x`]) {
      const res = await h.request('GET', `/v1/subscriptions/authorize/${token}?payer=${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'payer' });
    }
    expect((await h.request('GET', `/v1/subscriptions/authorize/${token}?payer=0x${'1'.repeat(40)}&other=1`)).status).toBe(422);
  });
});
