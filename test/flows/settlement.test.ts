import type { Address, Hex, LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { payOrderFromJson, toBytes32Id } from '../../src/chain/eip712.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../helpers/chain.js';
import { merchant, order } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { driveOperator } from '../helpers/flow.js';

/**
 * Reserve release on anvil: after RESERVE_HOLD_DAYS on the chain clock (moved with evm_increaseTime), the
 * settlement worker sends settleBatch with the operator key and the indexer confirms it from the logs.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const HOLD = 7 * 86_400;
let chain: TestChain;
let h: Harness;
let buyer: LocalAccount;
type Tenant = { key: string; platformId: string; merchantId: string; wallet: Address };
let a: Tenant;
let b: Tenant;
const platformWallet = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  chain = await startTestChain({ buyers: 1 });
  buyer = chain.buyers[0]!;
  const { signerPrivateKey: signerKey, operatorPrivateKey: operatorKey } = await authoriseServiceKeys(chain);
  const owner = chain.walletClientFor(chain.owner);
  await chain.anvil.setBalance({ address: platformWallet.address, value: 10n ** 20n });
  await chain.confirm(await owner.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'mint', args: [platformWallet.address, 1_000n * 10n ** 6n] }));
  await chain.confirm(await chain.walletClientFor(buyer).writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, 2n ** 256n - 1n] }));

  h = await createHarness({
    chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, router: chain.router, usdc: chain.usdc, confirmations: 1 }],
    config: { signerPrivateKey: signerKey, operatorPrivateKey: operatorKey, serviceTreasury: chain.treasury, reserveHoldDays: 7 },
  });
  const tenant = async (): Promise<Tenant> => {
    const p = await h.platform({ platform_wallet: platformWallet.address, platform_fee_bps: 500 });
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    const m = await merchant(h, p.secretKey, { merchant_wallet: wallet, reserve_bps: 1000 });
    return { key: p.secretKey, platformId: p.platformId, merchantId: m.external_id, wallet };
  };
  a = await tenant();
  b = await tenant();
});
afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

const usdc = (who: Address) => chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [who] });
const reserveOf = async (id: string) =>
  (await chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'orders', args: [toBytes32Id(id)] })).reserve;
const orderRow = (id: string) => h.db.selectFrom('orders').select(['settlement_id', 'reserve_remaining', 'state']).where('id', '=', id).executeTakeFirstOrThrow();

async function index() {
  await chain.mine(1);
  await h.services.indexer.runOnce(chain.chainId);
}

/** Pays `amount` on chain; the reserve is 10% of (amount − 6%) = 9.4% of it. */
async function paidOrder(t: Tenant, amount: string): Promise<{ id: string }> {
  const o = await order(h, t.key, t.merchantId, { amount });
  await chain.confirm(await chain.walletClientFor(buyer).writeContract({
    address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(o.eip712), o.signature as Hex],
  }));
  return o;
}

async function refund(t: Tenant, body: Record<string, unknown>) {
  const res = await h.request('POST', '/v1/refunds', { key: t.key, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Runs the worker and waits for its batch to be mined and indexed; returns the settlement row. */
async function settle() {
  const before = new Set((await h.db.selectFrom('settlements').select('id').execute()).map((s) => s.id));
  await h.services.settlements.runOnce();
  const created = (await h.db.selectFrom('settlements').selectAll().execute()).filter((s) => !before.has(s.id));
  await driveOperator(h, chain);
  await index();
  return Promise.all(created.map((s) => h.db.selectFrom('settlements').selectAll().where('id', '=', s.id).executeTakeFirstOrThrow()));
}

describe('settlement flow on chain', () => {
  let a1: { id: string };
  let a2: { id: string };
  let a3: { id: string };
  let b1: { id: string };
  let late: { id: string };

  it('releases nothing before the hold has passed on the chain clock', async () => {
    a1 = await paidOrder(a, '100.00'); // reserve 9.40
    a2 = await paidOrder(a, '40.00'); // reserve 3.76, 1.00 of it refunded below
    a3 = await paidOrder(a, '50.00'); // reserve 4.70, held back by an open refund
    b1 = await paidOrder(b, '60.00'); // reserve 5.64
    await index();
    const small = await refund(a, { order_id: a2.id, amount: '1.00' });
    await h.services.refunds.runOnce();
    await driveOperator(h, chain);
    await index();
    expect((await h.db.selectFrom('refunds').select('state').where('id', '=', small.id).executeTakeFirstOrThrow()).state).toBe('completed');
    expect((await orderRow(a2.id)).reserve_remaining).toBe(2_760_000n);
    expect((await refund(a, { order_id: a3.id, amount: '30.00' })).state).toBe('requires_funding');

    // Order deadlines are wall-clock: pay the later order half a day (chain time) after the others, within its day.
    const o = await order(h, a.key, a.merchantId, { amount: '10.00', expires_in_seconds: 86_400 }); // reserve 0.94
    await chain.increaseTime(43_200);
    await chain.confirm(await chain.walletClientFor(buyer).writeContract({
      address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(o.eip712), o.signature as Hex],
    }));
    late = o;
    await index();

    await chain.increaseTime(HOLD - 43_200 - 120);
    expect(await settle()).toEqual([]);
    expect((await orderRow(a1.id)).settlement_id).toBeNull();
  });

  it('after the hold, pays each merchant exactly the remaining reserve and the router keeps nothing for those orders', async () => {
    await chain.increaseTime(180);
    const merchantA = await usdc(a.wallet);
    const merchantB = await usdc(b.wallet);
    const routerBefore = await usdc(chain.router);

    const [s, ...more] = await settle();
    expect(more).toEqual([]);
    expect(s).toMatchObject({ state: 'confirmed', order_count: 3, total: 9_400_000n + 2_760_000n + 5_640_000n });
    expect(s!.id).toMatch(/^stl_/);
    expect(s!.onchain_id).toBe(toBytes32Id(s!.id));
    expect((await usdc(a.wallet)) - merchantA).toBe(9_400_000n + 2_760_000n);
    expect((await usdc(b.wallet)) - merchantB).toBe(5_640_000n);
    expect(routerBefore - (await usdc(chain.router))).toBe(9_400_000n + 2_760_000n + 5_640_000n);
    for (const o of [a1, a2, b1]) {
      expect(await reserveOf(o.id)).toBe(0n);
      expect(await orderRow(o.id)).toMatchObject({ settlement_id: s!.id, reserve_remaining: 0n });
    }
    // Left out: the order with an open refund, and the one paid half a day later.
    expect((await orderRow(a3.id)).settlement_id).toBeNull();
    expect((await orderRow(late.id)).settlement_id).toBeNull();
    // The router holds exactly the reserves not yet released or refunded.
    expect(await usdc(chain.router)).toBe(4_700_000n + 940_000n);

    const listA = await h.request('GET', '/v1/settlements', { key: a.key });
    expect(listA.body).toMatchObject({ object: 'list', has_more: false });
    expect(listA.body.data).toHaveLength(1);
    expect(listA.body.data[0]).toMatchObject({ id: s!.id, object: 'settlement', state: 'confirmed', order_count: 2, total: '12.16', tx_hash: s!.tx_hash });
    expect(listA.body.data[0].orders.map((o: { order_id: string }) => o.order_id).sort()).toEqual([a1.id, a2.id].sort());
    expect(listA.body.data[0].orders.find((o: { order_id: string }) => o.order_id === a2.id)).toMatchObject({ amount: '2.76', released_amount: '2.76', state: 'released' });
    const oneB = await h.request('GET', `/v1/settlements/${s!.id}`, { key: b.key });
    expect(oneB.body).toMatchObject({ order_count: 1, total: '5.64', orders: [{ order_id: b1.id, state: 'released' }] });

    const events = await h.db.selectFrom('events').selectAll().where('type', '=', 'settlement.completed').execute();
    const byPlatform = new Map(events.map((e) => [e.platform_id, (e.data as { object: Record<string, any> }).object]));
    expect(byPlatform.get(a.platformId)).toMatchObject({ id: s!.id, order_count: 2, total: '12.16' });
    expect(byPlatform.get(b.platformId)).toMatchObject({ id: s!.id, order_count: 1, total: '5.64' });
    expect(byPlatform.get(a.platformId)!.orders.some((o: { order_id: string }) => o.order_id === b1.id)).toBe(false);
    expect(events).toHaveLength(2);
  });

  it('a batch the router refuses fails, its orders are unlinked, and a later batch releases them', async () => {
    // The open refund on a3 passed its deadline unexecuted: the sweeper fails it, so a3 is due again.
    await h.services.refunds.runOnce();
    const open = (await h.request('GET', `/v1/refunds?order_id=${a3.id}&state=failed`, { key: a.key })).body.data;
    expect(open).toHaveLength(1);
    await chain.increaseTime(43_200 + 60); // the later order is due too
    const owner = chain.walletClientFor(chain.owner);
    await chain.confirm(await owner.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'pause' }));

    const [failed] = await settle();
    expect(failed).toMatchObject({ state: 'failed', tx_hash: null, order_count: 2 });
    expect(failed!.error).toContain('EnforcedPause');
    expect((await orderRow(a3.id)).settlement_id).toBeNull();
    expect((await orderRow(late.id)).settlement_id).toBeNull();

    await chain.confirm(await owner.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'unpause' }));
    const merchantA = await usdc(a.wallet);
    const [ok] = await settle();
    expect(ok).toMatchObject({ state: 'confirmed', order_count: 2, total: 4_700_000n + 940_000n });
    expect((await usdc(a.wallet)) - merchantA).toBe(4_700_000n + 940_000n);
    expect(await usdc(chain.router)).toBe(0n);

    const list = (await h.request('GET', '/v1/settlements', { key: a.key })).body.data;
    expect(list.map((s: { id: string; state: string }) => [s.id, s.state])).toEqual([[ok!.id, 'confirmed'], [failed!.id, 'failed'], [expect.any(String), 'confirmed']]);
    expect(list[1]).toMatchObject({ total: '0.00', order_count: 2 });
    expect(list[1].orders.map((o: { state: string }) => o.state)).toEqual(['batch_failed', 'batch_failed']);
    expect((await h.request('GET', '/v1/settlements', { key: b.key })).body.data).toHaveLength(1);
    expect((await h.request('GET', `/v1/settlements/${ok!.id}`, { key: b.key })).status).toBe(404);
  });
});
