/**
 * Subscriptions (issue 30) on anvil at 2 and 20 confirmations, with Circle's FiatTokenV2_2, the real router and
 * SubscriptionManager, the real indexer and operator sender; periods are moved with anvil time. The payer signs the
 * public read's typed data once; each period's charge is an order paid by the operator's charge(…).
 */
import { concat, encodeFunctionData, erc20Abi, hashTypedData, pad, parseEventLogs, zeroAddress, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { subscriptionManagerAbi } from '../../src/chain/artifacts/SubscriptionManager.js';
import { toBytes32Id } from '../../src/chain/eip712.js';
import { formatUnits } from '../../src/lib/money.js';
import { computeSplit } from '../../src/modules/orders/split.js';
import { permissionFromJson } from '../../src/modules/subscriptions/permission.js';
import { MAX_PERIODS_PER_MOVE } from '../../src/modules/subscriptions/test-clock.js';
import { createServices } from '../../src/services.js';
import { sweepSubscriptions } from '../../src/workers.js';
import { balances, changes, chargeLaterFlow, driveAtDepth, units, type ChargeLaterFlow } from '../helpers/charge-later-flow.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { deploySafe, deploySafeStack, SAFE_ARTIFACTS, signSafeHash } from '../helpers/safe.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });
const noncesAbi = [{ type: 'function', name: 'nonces', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ type: 'uint256' }] }] as const;
const MONTH = 2_592_000;
const DAY = 86_400;

describe.each([2, 20])('subscriptions on anvil, %i confirmations', (depth) => {
  let t: ChargeLaterFlow;
  beforeAll(async () => { t = await chargeLaterFlow(depth); });
  afterAll(async () => { await t?.f.close(); });

  const manager = () => t.f.chain.subscriptionManager;
  const sub = async (id: string) => (await t.api('GET', `/v1/subscriptions/${id}`)).body;
  const charges = (id: string) => t.f.h.db.selectFrom('orders').selectAll().where('subscription_id', '=', id).orderBy('created_at').execute();
  /** A fresh EOA with gas and `usdc` base units, from the first buyer. */
  async function payer(usdc: bigint): Promise<LocalAccount> {
    const { chain } = t.f;
    const a = privateKeyToAccount(generatePrivateKey());
    await chain.anvil.setBalance({ address: a.address, value: 10n ** 20n });
    if (usdc > 0n) await chain.confirm(await chain.walletClientFor(chain.buyers[0]!).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [a.address, usdc] }));
    return a;
  }
  const approve = async (who: LocalAccount, value: bigint) =>
    t.f.chain.confirm(await t.f.chain.walletClientFor(who).writeContract({ address: t.f.chain.usdc, abi: erc20Abi, functionName: 'approve', args: [manager(), value] }));
  async function create(amount = '10.00', merchantId: string = t.setup.m.external_id, terms: Record<string, unknown> = {}) {
    await t.syncClock();
    const res = await t.api('POST', '/v1/subscriptions', { merchant_id: merchantId, chain_id: 84532, token: 'USDC', amount, interval: 'month', ...terms });
    expect(res.status, res.text).toBe(201);
    return { id: res.body.id as string, token: (res.body.url as string).split('/subscribe/')[1]! };
  }
  /** The payer signs the public read's typed data (as a wallet) and the page posts it. */
  async function authorize(token: string, who: Address, sign: (typed: any, message: any) => Promise<Hex>) {
    await t.syncClock();
    const read = (await t.f.h.request('GET', `/v1/subscriptions/authorize/${token}`)).body;
    const message = { ...read.typed_data.message, payer: who, amount: BigInt(read.typed_data.message.amount), salt: BigInt(read.typed_data.message.salt) };
    const signature = await sign(read.typed_data, message);
    return t.f.h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: { payer: who, start: message.start, signature } });
  }
  const eoaSign = (a: LocalAccount) => (typed: any, message: any) => a.signTypedData({ domain: typed.domain, types: typed.types, primaryType: 'SpendPermission', message });
  /** Chain time forward, indexed to the depth, the scheduler's pass, the operator's transactions, indexed again. */
  async function period(seconds: number) {
    if (seconds > 0) await t.f.chain.increaseTime(seconds);
    await t.index();
    await t.syncClock();
    await sweepSubscriptions(t.f.h.services, 84532);
    await t.drive();
    await t.index();
  }

  /** Canceled (and revoked) so that later tests' moves of the chain's clock do not charge it. */
  async function stop(id: string) {
    expect((await t.api('POST', `/v1/subscriptions/${id}/cancel`, {})).status).toBe(200);
    await t.drive();
  }
  /** The devnet's test clock, as a platform calls it. */
  const advance = (seconds: number) => t.api('POST', '/v1/test_helpers/advance_time', { seconds });
  const chainTime = async () => Number(await t.chainNow());
  /** The chain time a charge was queued at (its order's deadline is a day after, on the chain clock). */
  const queuedAt = (o: { deadline_at: Date }) => o.deadline_at.getTime() / 1000 - DAY;
  /**
   * The webhook events of a subscription and its charges, in the order they were written: one array per writing
   * transaction (events of one transaction carry no order among themselves), each `type:period` (period of the order).
   */
  async function timeline(id: string) {
    const orders = await charges(id);
    const period = new Map(orders.map((o) => [o.id, o.subscription_period]));
    const rows = (await t.f.h.db.selectFrom('events').select(['type', 'data', 'tx', 'created_at']).where('platform_id', '=', t.setup.p.platformId).execute())
      .filter((e: any) => e.data.object.id === id || period.has(e.data.object.id));
    rows.sort((a, b) => (BigInt(a.tx) < BigInt(b.tx) ? -1 : BigInt(a.tx) > BigInt(b.tx) ? 1 : a.created_at.getTime() - b.created_at.getTime()));
    const batches: string[][] = [];
    let last: string | null = null;
    for (const e of rows as any[]) {
      const name = period.has(e.data.object.id) ? `${e.type}:${period.get(e.data.object.id)}` : e.type;
      if (e.tx !== last) batches.push([]);
      batches[batches.length - 1]!.push(name);
      last = e.tx;
    }
    return batches.map((b) => b.sort());
  }

  it('the test clock +60 days on a monthly plan: periods 0, 1 and 2 each charged in its own period, in order, with their events', async () => {
    const buyer = await payer(100_000_000n);
    await approve(buyer, 120_000_000n);
    const { id, token } = await create('10.00');
    const res = await authorize(token, buyer.address, eoaSign(buyer));
    expect(res.status, res.text).toBe(200);
    const start = Math.floor(new Date(res.body.current_period_start).getTime() / 1000);
    const before = await balances(t.f.chain, t.who(buyer));
    const moved = await advance(60 * DAY);
    expect(moved.status, moved.text).toBe(200);
    expect(await chainTime()).toBeGreaterThanOrEqual(start + 60 * DAY);
    const orders = await charges(id);
    expect(orders.map((o) => [o.subscription_period, o.state])).toEqual([[0, 'confirmed'], [1, 'confirmed'], [2, 'confirmed']]);
    // Each paid inside its own period on the chain's clock (the manager counts the period from the block's time).
    orders.forEach((o, k) => {
      const paid = o.paid_at!.getTime() / 1000;
      expect(paid).toBeGreaterThanOrEqual(start + k * MONTH);
      expect(paid).toBeLessThan(start + (k + 1) * MONTH);
    });
    expect(changes(before, await balances(t.f.chain, t.who(buyer))).payer).toBe(-30_000_000n);
    expect(await sub(id)).toMatchObject({ state: 'active', periods_charged: 3, next_charge_at: new Date((start + 3 * MONTH) * 1000).toISOString() });
    const confirmed = (await timeline(id)).flat().filter((e) => e.startsWith('order.confirmed'));
    expect(confirmed).toEqual(['order.confirmed:0', 'order.confirmed:1', 'order.confirmed:2']);
    await stop(id);
  });

  it('the test clock +7 days on a 3-period daily plan: three charges, then the subscription ends', async () => {
    const buyer = await payer(50_000_000n);
    await approve(buyer, 50_000_000n);
    const { id, token } = await create('2.00', t.setup.m.external_id, { interval: 'day', max_periods: 3 });
    expect((await authorize(token, buyer.address, eoaSign(buyer))).status).toBe(200);
    const before = await balances(t.f.chain, t.who(buyer));
    expect((await advance(7 * DAY)).status).toBe(200);
    expect((await charges(id)).map((o) => [o.subscription_period, o.state])).toEqual([[0, 'confirmed'], [1, 'confirmed'], [2, 'confirmed']]);
    expect(changes(before, await balances(t.f.chain, t.who(buyer))).payer).toBe(-6_000_000n);
    expect(await sub(id)).toMatchObject({ state: 'canceled', cancel_reason: 'ended', periods_charged: 3, next_charge_at: null });
    const events = (await timeline(id)).flat();
    expect(events.filter((e) => e.startsWith('order.confirmed'))).toEqual(['order.confirmed:0', 'order.confirmed:1', 'order.confirmed:2']);
    expect(events.at(-1)).toBe('subscription.canceled');
  });

  it('the test clock over a period the payer cannot pay: that period fails, dunning retries +1 h, +1 day, +3 days in order, then canceled', async () => {
    const buyer = await payer(15_000_000n); // period 0 (10.00) is paid, period 1 is not
    await approve(buyer, 120_000_000n);
    const { id, token } = await create('10.00');
    const res = await authorize(token, buyer.address, eoaSign(buyer));
    expect(res.status, res.text).toBe(200);
    const start = Math.floor(new Date(res.body.current_period_start).getTime() / 1000);
    expect((await advance(40 * DAY)).status).toBe(200);
    const orders = await charges(id);
    expect(orders.map((o) => [o.subscription_period, o.state])).toEqual([[0, 'confirmed'], [1, 'failed'], [1, 'failed'], [1, 'failed'], [1, 'failed']]);
    // The first attempt of period 1 at its start, each retry its delay after the previous failure (chain clock; a few blocks of driving apart).
    const at = orders.slice(1).map(queuedAt);
    expect(at[0]! - (start + MONTH)).toBeGreaterThanOrEqual(0);
    expect(at[0]! - (start + MONTH)).toBeLessThan(600);
    [3_600, DAY, 3 * DAY].forEach((delay, i) => {
      expect(at[i + 1]! - at[i]! - delay).toBeGreaterThanOrEqual(0);
      expect(at[i + 1]! - at[i]! - delay).toBeLessThan(600);
    });
    expect(await sub(id)).toMatchObject({ state: 'canceled', cancel_reason: 'payment_failed', periods_charged: 1, failed_attempts: 4 });
    const events = (await timeline(id)).flat();
    expect(events.filter((e) => e.startsWith('subscription.') || e.startsWith('order.confirmed') || e.startsWith('order.failed'))).toEqual([
      'subscription.created', 'subscription.activated', 'order.confirmed:0', 'order.failed:1', 'subscription.past_due', 'order.failed:1', 'order.failed:1', 'order.failed:1', 'subscription.canceled',
    ]);
  });

  it(`the test clock refuses a move past ${MAX_PERIODS_PER_MOVE} periods of a subscription (422 naming the bound): chain time and rows unchanged`, async () => {
    const buyer = await payer(10_000_000n);
    await approve(buyer, 10_000_000n);
    const { id, token } = await create('0.10', t.setup.m.external_id, { interval: 'day' });
    expect((await authorize(token, buyer.address, eoaSign(buyer))).status).toBe(200);
    expect((await advance(1)).status).toBe(200); // period 0 charged
    const t0 = await chainTime();
    const rows = async () => ({ sub: await t.f.h.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow(), orders: await charges(id) });
    const before = await rows();
    const refused = await advance((MAX_PERIODS_PER_MOVE + 2) * DAY);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', param: 'seconds' });
    expect(refused.body.error.message).toContain(`at most ${MAX_PERIODS_PER_MOVE} periods`);
    expect(refused.body.error.message).toContain(id);
    expect(await chainTime()).toBe(t0);
    expect(await rows()).toEqual(before);
    // The refused move spent nothing: a move within the bound goes, one charge per day passed.
    expect((await advance(2 * DAY)).status).toBe(200);
    expect((await charges(id)).map((o) => [o.subscription_period, o.state])).toEqual([[0, 'confirmed'], [1, 'confirmed'], [2, 'confirmed']]);
    await stop(id);
  });

  it('a payer who withdraws the allowance stops charges: the stored permit is not re-applied, the retry fails for allowance, nothing moves', async () => {
    const { chain } = t.f;
    const buyer = await payer(0n); // the first charge fails for balance: the permit signed with it is not used on chain
    const { id, token } = await create('10.00');
    await t.syncClock();
    const read = (await t.f.h.request('GET', `/v1/subscriptions/authorize/${token}?payer=${buyer.address}`)).body;
    const permitData = read.allowance.permit.typed_data;
    expect(read.allowance.permit.nonce_filled).toBe(true);
    const m = permitData.message;
    const permitSig = await buyer.signTypedData({
      domain: permitData.domain, types: permitData.types, primaryType: 'Permit',
      message: { owner: buyer.address, spender: m.spender, value: BigInt(m.value), nonce: BigInt(m.nonce), deadline: BigInt(m.deadline) },
    });
    const message = { ...read.typed_data.message, payer: buyer.address, amount: BigInt(read.typed_data.message.amount), salt: BigInt(read.typed_data.message.salt) };
    const signature = await eoaSign(buyer)(read.typed_data, message);
    const res = await t.f.h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: { payer: buyer.address, start: message.start, signature, permit: { value: m.value, deadline: m.deadline, signature: permitSig } } });
    expect(res.status, res.text).toBe(200);
    expect((await advance(1)).status).toBe(200);
    expect(await sub(id)).toMatchObject({ state: 'past_due', failed_attempts: 1 });
    // The payer withdraws: approve(manager, 0); then money arrives in the wallet.
    await approve(buyer, 0n);
    await chain.confirm(await chain.walletClientFor(chain.buyers[0]!).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [buyer.address, 10_000_000n] }));
    const nonceBefore = await chain.publicClient.readContract({ address: chain.usdc, abi: noncesAbi, functionName: 'nonces', args: [buyer.address] });
    const before = await balances(chain, t.who(buyer));
    expect((await advance(3_600 + 60)).status).toBe(200);
    const orders = await charges(id);
    expect(orders.map((o) => o.state)).toEqual(['failed', 'failed']);
    expect(orders[1]!.failure_reason).toMatch(/allowance/i);
    expect(changes(before, await balances(chain, t.who(buyer)))).toEqual({ treasury: 0n, platform: 0n, merchant: 0n, router: 0n, payer: 0n });
    expect(await chain.publicClient.readContract({ address: chain.usdc, abi: erc20Abi, functionName: 'allowance', args: [buyer.address, manager()] })).toBe(0n);
    // The permit was never applied: the payer's permit nonce did not move.
    expect(await chain.publicClient.readContract({ address: chain.usdc, abi: noncesAbi, functionName: 'nonces', args: [buyer.address] })).toBe(nonceBefore);
    expect(await sub(id)).toMatchObject({ state: 'past_due', failed_attempts: 2, periods_charged: 0 });
    await stop(id);
  });

  it('three monthly charges: each an order with the exact split in the chain\'s transfers, the next due at start + k × period', async () => {
    const buyer = await payer(100_000_000n);
    await approve(buyer, 120_000_000n);
    const { id, token } = await create('10.00');
    const res = await authorize(token, buyer.address, eoaSign(buyer));
    expect(res.status, res.text).toBe(200);
    const start = Math.floor(new Date(res.body.current_period_start).getTime() / 1000);
    const who = t.who(buyer);
    const split = computeSplit(10_000_000n, 100, 500, 1000);
    const want = { treasury: split.serviceFee, platform: split.platformFee, merchant: split.merchantAvailable, router: split.reserveHold, payer: -10_000_000n };
    let before = await balances(t.f.chain, who);
    await period(0);
    expect(changes(before, await balances(t.f.chain, who))).toEqual(want);
    for (const k of [1, 2]) {
      before = await balances(t.f.chain, who);
      await period(MONTH);
      expect(changes(before, await balances(t.f.chain, who))).toEqual(want);
      expect(await sub(id)).toMatchObject({ state: 'active', periods_charged: k + 1, next_charge_at: new Date((start + (k + 1) * MONTH) * 1000).toISOString() });
    }
    const orders = await charges(id);
    expect((await t.api('GET', `/v1/orders/${orders[0]!.id}`)).body).toMatchObject({ payment_method: 'subscription', payer: buyer.address });
    expect(orders.map((o) => [o.state, o.subscription_period, o.service_fee, o.platform_fee, o.reserve_hold])).toEqual([0, 1, 2].map((k) => ['confirmed', k, split.serviceFee, split.platformFee, split.reserveHold]));
    // The ledger has each charge's four legs, as for any payment, with the split's numbers.
    const ledger = (await t.api('GET', '/v1/balance_transactions?limit=100')).body.data.filter((b: any) => orders.some((o) => o.id === b.order_id));
    expect(ledger.filter((b: any) => b.type === 'payment_service_fee').map((b: any) => b.amount)).toHaveLength(3);
    expect(ledger.filter((b: any) => b.type === 'payment_reserve_hold')).toHaveLength(3);
    // The deployed manager's own split(p, amount) agrees with orders/split.ts.
    const p = permissionFromJson((await t.f.h.db.selectFrom('subscriptions').select('permission').where('id', '=', id).executeTakeFirstOrThrow()).permission as never);
    for (const amount of [1n, 999_999n, 10_000_000n, 123_456_789n]) {
      const onChain = await t.f.chain.publicClient.readContract({ address: manager(), abi: subscriptionManagerAbi, functionName: 'split', args: [p, amount] });
      const ours = computeSplit(amount, 100, 500, 1000);
      expect(onChain).toEqual([ours.serviceFee, ours.platformFee, ours.reserveHold]);
    }
    // Nothing more before the next period begins on the chain's clock.
    await period(0);
    expect(await charges(id)).toHaveLength(3);
    // Every charge's USDC into the router is the manager's own pull (Charged): none is an unmatched transfer.
    const unmatched = await t.f.h.request('GET', '/_/unmatched-transfers?limit=100', { key: ADMIN_TOKEN });
    expect(unmatched.status, unmatched.text).toBe(200);
    const ours = [manager(), buyer.address].map((a) => a.toLowerCase());
    expect((unmatched.body.data as { from: string }[]).filter((u) => ours.includes(u.from.toLowerCase()))).toEqual([]);
  });

  it('a charge failing for balance leaves nothing moved and the subscription past_due; the retry an hour later succeeds', async () => {
    const buyer = await payer(0n);
    await approve(buyer, 50_000_000n);
    const { id, token } = await create('5.00');
    expect((await authorize(token, buyer.address, eoaSign(buyer))).status).toBe(200);
    const before = await balances(t.f.chain, t.who(buyer));
    await period(0);
    expect(changes(before, await balances(t.f.chain, t.who(buyer)))).toEqual({ treasury: 0n, platform: 0n, merchant: 0n, router: 0n, payer: 0n });
    expect(await sub(id)).toMatchObject({ state: 'past_due', failed_attempts: 1 });
    expect((await charges(id))[0]!.state).toBe('failed');
    await t.f.chain.confirm(await t.f.chain.walletClientFor(t.f.chain.buyers[0]!).writeContract({ address: t.f.chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [buyer.address, 5_000_000n] }));
    await period(3_600 + 120); // an hour after the failure was delivered, a few blocks after the charge's period began
    expect(await sub(id)).toMatchObject({ state: 'active', failed_attempts: 0, periods_charged: 1 });
    expect((await charges(id)).map((o) => o.state)).toEqual(['failed', 'confirmed']);
  });

  it('dunning to canceled: +1 h, +1 day, +3 days all fail, then canceled (payment_failed) and revoked on chain', async () => {
    const buyer = await payer(0n); // no allowance, no balance
    const { id, token } = await create('1.00');
    expect((await authorize(token, buyer.address, eoaSign(buyer))).status).toBe(200);
    await period(0);
    for (const wait of [3_600, 86_400, 3 * 86_400]) {
      // The retry is due `wait` after the failure was delivered (a few blocks after this period's start).
      expect((await sub(id)).state).toBe('past_due');
      await period(wait + 120);
    }
    const s = await sub(id);
    expect(s).toMatchObject({ state: 'canceled', cancel_reason: 'payment_failed', failed_attempts: 4 });
    expect(await t.f.chain.publicClient.readContract({ address: manager(), abi: subscriptionManagerAbi, functionName: 'revoked', args: [s.permission_hash] })).toBe(true);
    expect((await charges(id)).map((o) => o.state)).toEqual(['failed', 'failed', 'failed', 'failed']);
  });

  it('cancel at period end: no charge after the current period, canceled and revoked when it ends', async () => {
    const buyer = await payer(50_000_000n);
    await approve(buyer, 50_000_000n);
    const { id, token } = await create('3.00');
    expect((await authorize(token, buyer.address, eoaSign(buyer))).status).toBe(200);
    await period(0);
    expect((await t.api('POST', `/v1/subscriptions/${id}/cancel`, { at_period_end: true })).body).toMatchObject({ state: 'active', cancel_at_period_end: true });
    await period(MONTH);
    const s = await sub(id);
    expect(s).toMatchObject({ state: 'canceled', cancel_reason: 'canceled_by_platform' });
    expect(await charges(id)).toHaveLength(1);
    expect(await t.f.chain.publicClient.readContract({ address: manager(), abi: subscriptionManagerAbi, functionName: 'revoked', args: [s.permission_hash] })).toBe(true);
  });

  it('cancel at once withdraws a charge still only queued: its order fails, nothing moves, the permission is revoked', async () => {
    const buyer = await payer(50_000_000n);
    await approve(buyer, 50_000_000n);
    const { id, token } = await create('7.00');
    expect((await authorize(token, buyer.address, eoaSign(buyer))).status).toBe(200);
    // The scheduler queues the first charge; the sender has not run yet.
    await t.index();
    await t.syncClock();
    await sweepSubscriptions(t.f.h.services, 84532);
    const [queued] = await charges(id);
    expect(queued!.state).toBe('pending_payment');
    const before = await balances(t.f.chain, t.who(buyer));
    const res = await t.api('POST', `/v1/subscriptions/${id}/cancel`, {});
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ state: 'canceled', cancel_reason: 'canceled_by_platform' });
    await t.drive();
    await t.index();
    expect(changes(before, await balances(t.f.chain, t.who(buyer)))).toEqual({ treasury: 0n, platform: 0n, merchant: 0n, router: 0n, payer: 0n });
    expect((await charges(id)).map((o) => [o.state, o.failure_reason])).toEqual([['failed', 'subscription canceled before the charge was sent']]);
    const intents = (await t.f.h.services.operatorTxs.list(84532)).filter((x) => x.ref_id === queued!.id || x.ref_id === id);
    expect(intents.map((x) => [x.purpose, x.state])).toEqual([['subscription_charge', 'rejected'], ['subscription_revoke', 'done']]);
    const s = await sub(id);
    expect(s).toMatchObject({ state: 'canceled', periods_charged: 0 });
    expect(await t.f.chain.publicClient.readContract({ address: manager(), abi: subscriptionManagerAbi, functionName: 'revoked', args: [s.permission_hash] })).toBe(true);
    const events = (await t.api('GET', '/v1/events?limit=100')).body.data.filter((e: any) => e.data.object.id === queued!.id).map((e: any) => e.type);
    expect(events).toContain('order.failed');
  });

  it('a charge\'s reserve settles like any order\'s: held for the hold on the chain clock, refundable from reserve, then released in the same batch as a checkout order', async () => {
    const { chain, h } = t.f;
    const HOLD = h.config.reserveHoldDays * 86_400;
    const reserveOnChain = async (orderId: string) =>
      (await chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'orders', args: [toBytes32Id(orderId)] })).reserve;
    /** The settlement worker's pass, its settleBatch mined to the depth and indexed; the settlements it created. */
    async function settle() {
      await t.index();
      const known = new Set((await h.db.selectFrom('settlements').select('id').execute()).map((s) => s.id));
      await h.services.settlements.runOnce();
      await t.drive();
      await t.index();
      return (await h.db.selectFrom('settlements').selectAll().execute()).filter((s) => !known.has(s.id));
    }
    // Earlier tests' charges past their hold are released first; this test's orders go to a merchant of their own.
    await settle();
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    const m = await t.api('POST', '/v1/onboarding/merchants', { external_id: `m_reserve_${depth}`, name: 'Reserve Goods', merchant_wallet: wallet, chain_id: 84532, reserve_bps: 1000 });
    expect(m.status, m.text).toBe(201);

    const buyer = await payer(100_000_000n);
    await approve(buyer, 100_000_000n);
    const { id, token } = await create('20.00', m.body.external_id);
    expect((await authorize(token, buyer.address, eoaSign(buyer))).status).toBe(200);
    await period(0);
    const [charge] = await charges(id);
    // A checkout-style order of the same amount, paid by the same payer in the same minute.
    await t.syncClock();
    const plain = await t.api('POST', '/v1/orders', { merchant_id: m.body.external_id, order_no: `plain-${depth}`, chain_id: 84532, token: 'USDC', amount: '20.00' });
    expect(plain.status, plain.text).toBe(201);
    await t.pay(buyer, plain.body);
    await t.index();
    const rows = await h.db.selectFrom('orders').select(['id', 'state', 'reserve_hold', 'reserve_remaining', 'reserve_release_at', 'paid_at']).where('id', 'in', [charge!.id, plain.body.id]).execute();
    const chargeRow = rows.find((r) => r.id === charge!.id)!;
    const plainRow = rows.find((r) => r.id === plain.body.id)!;
    const split = computeSplit(20_000_000n, 100, 500, 1000);
    for (const r of [chargeRow, plainRow]) {
      expect(r).toMatchObject({ state: 'confirmed', reserve_hold: split.reserveHold, reserve_remaining: split.reserveHold });
      // Held for exactly the hold, from the block that paid it (the chain's clock, not the wall clock).
      expect(r.reserve_release_at!.getTime() - r.paid_at!.getTime()).toBe(HOLD * 1000);
    }
    expect(await reserveOnChain(charge!.id)).toBe(split.reserveHold);

    // A partial refund of the charge comes out of its reserve, exactly as for any order.
    const refund = await t.api('POST', '/v1/refunds', { order_id: charge!.id, amount: '0.50' });
    expect(refund.status, refund.text).toBe(201);
    await h.services.refunds.runOnce();
    await t.drive();
    await t.index();
    expect((await t.api('GET', `/v1/refunds/${refund.body.id}`)).body).toMatchObject({ state: 'completed' });
    const left = split.reserveHold - 500_000n;
    expect(await reserveOnChain(charge!.id)).toBe(left);

    // The balance counts both reserves as held and nothing of them releasable before the hold ends.
    const mine = async () => (await t.api('GET', '/v1/balance_transactions?type=reserve_release&limit=100')).body.data.filter((b: any) => b.order_id === charge!.id || b.order_id === plain.body.id);
    const balanceBefore = (await t.api('GET', `/v1/balance?merchant_id=${m.body.external_id}`)).body;
    await chain.increaseTime(HOLD - 600);
    expect(await settle()).toEqual([]);
    expect(await mine()).toEqual([]);

    await chain.increaseTime(1_200);
    const before = await balances(chain, { merchant: wallet, router: chain.router });
    const created = await settle();
    expect(created).toHaveLength(1);
    const s = created[0]!;
    // The batch may carry other merchants' due orders (a charge of an earlier test paid in the same minute).
    expect(s.state).toBe('confirmed');
    // The merchant's wallet gets exactly what the router held for the two orders, and the router pays out the batch.
    expect(changes(before, await balances(chain, { merchant: wallet, router: chain.router }))).toEqual({ merchant: left + split.reserveHold, router: -BigInt(s.total) });
    expect(await reserveOnChain(charge!.id)).toBe(0n);
    expect(await reserveOnChain(plain.body.id)).toBe(0n);
    for (const o of [charge!.id, plain.body.id]) {
      expect(await h.db.selectFrom('orders').select(['settlement_id', 'reserve_remaining']).where('id', '=', o).executeTakeFirstOrThrow()).toEqual({ settlement_id: s.id, reserve_remaining: 0n });
    }
    // The ledger has one reserve_release per order, the balance moved them from held to released.
    const released = await mine();
    expect(released.map((b: any) => [b.order_id, b.amount, b.settlement_id]).sort()).toEqual([
      [charge!.id, formatUnits(left), s.id], [plain.body.id, formatUnits(split.reserveHold), s.id],
    ].sort());
    const balanceAfter = (await t.api('GET', `/v1/balance?merchant_id=${m.body.external_id}`)).body;
    expect(units(balanceAfter.released) - units(balanceBefore.released)).toBe(left + split.reserveHold);
    expect(units(balanceBefore.reserve_held) - units(balanceAfter.reserve_held)).toBe(left + split.reserveHold);
    const settlement = (await t.api('GET', `/v1/settlements/${s.id}`)).body;
    const ours = settlement.orders.filter((o: any) => o.order_id === charge!.id || o.order_id === plain.body.id);
    expect(ours.map((o: any) => [o.order_id, o.state, o.released_amount]).sort()).toEqual([[charge!.id, 'released', formatUnits(left)], [plain.body.id, 'released', formatUnits(split.reserveHold)]].sort());
  });

  it('a Safe (ERC-1271) subscribes: the owner signs for the Safe, the Safe approves the manager, the charge pulls from the Safe', async () => {
    const { chain } = t.f;
    const owner = chain.buyers[1]!;
    const stack = await deploySafeStack(chain);
    const safe = await deploySafe(chain, stack, [owner.address], BigInt(depth));
    await chain.confirm(await chain.walletClientFor(chain.buyers[0]!).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [safe, 20_000_000n] }));
    // The owner executes approve(manager) from the Safe (pre-validated signature: msg.sender is the owner).
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [manager(), 20_000_000n] });
    const signatures = concat([pad(owner.address), pad('0x00'), '0x01']);
    await chain.confirm(await chain.walletClientFor(owner).writeContract({
      address: safe, abi: SAFE_ARTIFACTS.SAFE.abi, functionName: 'execTransaction',
      args: [chain.usdc, 0n, data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, signatures],
    }));
    const { id, token } = await create('4.00');
    const res = await authorize(token, safe, (typed, message) => signSafeHash(owner, safe, 84532, hashTypedData({ domain: typed.domain, types: typed.types, primaryType: 'SpendPermission', message })));
    expect(res.status, res.text).toBe(200);
    const before = await balances(chain, { safe });
    await period(0);
    expect(changes(before, await balances(chain, { safe }))).toEqual({ safe: -4_000_000n });
    expect(await sub(id)).toMatchObject({ state: 'active', payer: safe, periods_charged: 1 });
    // Another wallet's signature for the Safe: refused (422) and counted.
    const other = await create('4.00');
    const bad = await authorize(other.token, safe, eoaSign(chain.buyers[0]!));
    expect(bad.status).toBe(422);
  });
  it('the payer revokes on chain while the service is stopped; restarted, it is canceled (payer_revoked) and never charged again', async () => {
    const buyer = await payer(50_000_000n);
    await approve(buyer, 50_000_000n);
    const { id, token } = await create('2.00');
    expect((await authorize(token, buyer.address, eoaSign(buyer))).status).toBe(200);
    await period(0);
    expect(await sub(id)).toMatchObject({ state: 'active', periods_charged: 1 });
    // The service is down from here on: the payer's wallet calls revoke(p) with no service involved.
    await t.f.h.services.operatorTxs.stop();
    const row = await t.f.h.db.selectFrom('subscriptions').select('permission').where('id', '=', id).executeTakeFirstOrThrow();
    const p = permissionFromJson(row.permission as never);
    const hash = await t.f.chain.walletClientFor(buyer).writeContract({ address: manager(), abi: subscriptionManagerAbi, functionName: 'revoke', args: [p] });
    expect(parseEventLogs({ abi: subscriptionManagerAbi, logs: (await t.f.chain.confirm(hash)).logs, eventName: 'PermissionRevoked' })).toHaveLength(1);
    await t.f.chain.increaseTime(MONTH);
    await t.f.chain.mine(depth);
    const restarted = createServices({ config: t.f.h.config, database: t.f.h.database, logger: t.f.h.services.logger, authSecret: 'test-secret-test-secret-test-secret-0123' });
    await restarted.indexer.runOnce(84532);
    await sweepSubscriptions(restarted, 84532);
    expect(await sub(id)).toMatchObject({ state: 'canceled', cancel_reason: 'payer_revoked' });
    expect(await charges(id)).toHaveLength(1);
    await restarted.operatorTxs.runOnce(84532);
  });
});
