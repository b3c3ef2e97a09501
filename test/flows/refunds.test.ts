import type { Address, Hex, LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { payOrderFromJson, refundOrderFromJson, toBytes32Id } from '../../src/chain/eip712.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../helpers/chain.js';
import { merchant, order } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { driveOperator } from '../helpers/flow.js';

/**
 * Refunds end to end on anvil: the real router, the service's signer and operator, the indexer applying
 * the Refunded logs, and balances checked to the unit.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let chain: TestChain;
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };
let buyer: LocalAccount;
const platformWallet = privateKeyToAccount(generatePrivateKey());
const merchantWallet = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startTestChain({ buyers: 1 });
  buyer = chain.buyers[0]!;
  const { signerPrivateKey: signerKey, operatorPrivateKey: operatorKey } = await authoriseServiceKeys(chain);
  const owner = chain.walletClientFor(chain.owner);
  // The platform funds what the reserve cannot cover: it needs USDC and gas.
  await chain.anvil.setBalance({ address: platformWallet.address, value: 10n ** 20n });
  await chain.confirm(await owner.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'mint', args: [platformWallet.address, 1_000n * 10n ** 6n] }));
  await chain.confirm(await chain.walletClientFor(buyer).writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, 2n ** 256n - 1n] }));

  h = await createHarness({
    chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, router: chain.router, usdc: chain.usdc, confirmations: 1 }],
    config: { signerPrivateKey: signerKey, operatorPrivateKey: operatorKey, serviceTreasury: chain.treasury, reserveHoldDays: 7 },
  });
  p = await h.platform({ platform_wallet: platformWallet.address, platform_fee_bps: 500 });
  m = await merchant(h, p.secretKey, { merchant_wallet: merchantWallet, reserve_bps: 1000 });
});
afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

const usdc = (who: Address) => chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [who] });
const routerOrder = (id: string) => chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'orders', args: [toBytes32Id(id)] });
const get = async (path: string) => (await h.request('GET', path, { key: p.secretKey })).body;

/** Mines past the confirmation depth and lets the indexer apply everything. */
async function index() {
  await chain.mine(1);
  await h.services.indexer.runOnce(chain.chainId);
}

/** 100.00 USDC, paid on chain by the buyer with the API's typed data and signature: reserve 9.40. */
async function paidOrder(): Promise<{ id: string }> {
  const o = await order(h, p.secretKey, m.external_id, { amount: '100.00', metadata: { cart: 'c_flow' } });
  await chain.confirm(await chain.walletClientFor(buyer).writeContract({
    address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(o.eip712), o.signature as Hex],
  }));
  await index();
  expect(await get(`/v1/orders/${o.id}`)).toMatchObject({ state: 'confirmed', paid_by: buyer.address });
  return o;
}

/** The platform wallet does what a requires_funding refund asks: approve funding_required, then refund(). */
async function fund(r: { funding_required: string; pay_to: string; eip712: never; signature: string }) {
  const w = chain.walletClientFor(platformWallet);
  await chain.confirm(await w.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [r.pay_to as Address, BigInt(r.funding_required)] }));
  return chain.confirm(await w.writeContract({
    address: r.pay_to as Address, abi: paymentRouterAbi, functionName: 'refund', args: [refundOrderFromJson(r.eip712), r.signature as Hex],
  }));
}

const refund = async (body: Record<string, unknown>) => {
  const res = await h.request('POST', '/v1/refunds', { key: p.secretKey, body });
  expect(res.status, res.text).toBe(201);
  return res.body;
};

const eventsFor = async (type: string, orderId: string) =>
  (await h.db.selectFrom('events').selectAll().where('type', '=', type).orderBy('created_at').execute())
    .map((e) => (e.data as { object: Record<string, any> }).object).filter((o) => o.order_id === orderId);

describe('refund flow on chain', () => {
  it('refunds from the reserve (operator submits), then the rest funded by the platform: buyer made whole to the unit', async () => {
    const buyerBefore = await usdc(buyer.address);
    const o = await paidOrder();
    expect(await usdc(buyer.address)).toBe(buyerBefore - 100_000_000n);

    const partial = await refund({ order_id: o.id, amount: '5.00', reason: 'one item missing' });
    expect(partial).toMatchObject({ state: 'pending', reserve_portion: '5000000', funding_required: '0', to: buyer.address, pay_to: chain.router });
    await h.services.refunds.runOnce();
    expect(await get(`/v1/refunds/${partial.id}`)).toMatchObject({ state: 'pending', attempts: 1, cancellation: null });
    // The operator sender sends it (outbox): one transaction, recorded with its nonce before broadcast.
    await driveOperator(h, chain);
    const [sent] = await h.services.operatorTxs.forRef('refund', partial.id);
    expect(sent).toMatchObject({ state: 'done', outcome: 'success', nonce: expect.any(BigInt) });
    expect(sent!.gas_used).toBeGreaterThan(0n);
    await index();
    expect(await get(`/v1/refunds/${partial.id}`)).toMatchObject({ state: 'completed', tx_hash: sent!.tx_hash, reserve_portion: '5000000', funding_required: '0' });
    expect(await get(`/v1/orders/${o.id}`)).toMatchObject({ state: 'partially_refunded', refunded_amount: '5.00' });
    expect(await usdc(buyer.address)).toBe(buyerBefore - 95_000_000n);

    const rest = await refund({ order_id: o.id });
    expect(rest).toMatchObject({ amount: '95.00', state: 'requires_funding', reserve_portion: '4400000', funding_required: '90600000' });
    const platformBefore = await usdc(platformWallet.address);
    const receipt = await fund(rest);
    await index();
    expect(platformBefore - (await usdc(platformWallet.address))).toBe(90_600_000n);
    expect(await usdc(buyer.address)).toBe(buyerBefore);
    expect(await get(`/v1/refunds/${rest.id}`)).toMatchObject({ state: 'completed', tx_hash: receipt.transactionHash });
    expect(await get(`/v1/orders/${o.id}`)).toMatchObject({ state: 'refunded', refunded_amount: '100.00' });
    expect(await routerOrder(o.id)).toMatchObject({ reserve: 0n, refunded: 100_000_000n });
    expect(await usdc(chain.router)).toBe(0n);

    const completed = await eventsFor('refund.completed', o.id);
    expect(completed.map((e) => [e.id, e.state, e.order.state])).toEqual([
      [partial.id, 'completed', 'partially_refunded'],
      [rest.id, 'completed', 'refunded'],
    ]);
    expect(completed[1]!.order.metadata).toEqual({ cart: 'c_flow' });
  });

  it('a pending refund whose reserve another refund spent first turns requires_funding instead of reverting', async () => {
    const buyerBefore = await usdc(buyer.address);
    const o = await paidOrder();
    const small = await refund({ order_id: o.id, amount: '5.00' });
    const big = await refund({ order_id: o.id });
    expect(small.state).toBe('pending');
    expect(big).toMatchObject({ amount: '95.00', state: 'requires_funding', reserve_portion: '4400000', funding_required: '90600000' });
    // The platform submits the big one before the operator sends the small one: the router spends the whole reserve on it.
    await fund(big);
    await index();
    expect(await get(`/v1/refunds/${big.id}`)).toMatchObject({ state: 'completed', reserve_portion: '9400000', funding_required: '85600000' });
    await h.services.refunds.runOnce();
    const flipped = await get(`/v1/refunds/${small.id}`);
    expect(flipped).toMatchObject({ state: 'requires_funding', reserve_portion: '0', funding_required: '5000000', tx_hash: null });
    await fund(flipped);
    await index();
    expect(await get(`/v1/orders/${o.id}`)).toMatchObject({ state: 'refunded', refunded_amount: '100.00' });
    expect(await usdc(buyer.address)).toBe(buyerBefore);
    expect(await usdc(chain.router)).toBe(0n);
  });

  it('a pending refund anyone submitted first is not sent again by the operator, and still completes', async () => {
    const o = await paidOrder();
    const r = await refund({ order_id: o.id, amount: '2.50' });
    expect(r.state).toBe('pending');
    // The signed refund is public: the platform submits it itself; the reserve covers it, so no approval is needed.
    const receipt = await chain.confirm(await chain.walletClientFor(platformWallet).writeContract({
      address: chain.router, abi: paymentRouterAbi, functionName: 'refund', args: [refundOrderFromJson(r.eip712), r.signature as Hex],
    }));
    await h.services.refunds.runOnce();
    expect(await get(`/v1/refunds/${r.id}`)).toMatchObject({ state: 'pending', tx_hash: null });
    await index();
    expect(await get(`/v1/refunds/${r.id}`)).toMatchObject({ state: 'completed', tx_hash: receipt.transactionHash });
    expect(await routerOrder(o.id)).toMatchObject({ reserve: 6_900_000n, refunded: 2_500_000n });
  });

  it('fails a refund nobody executed by its deadline (chain clock), emits refund.failed and frees the amount', async () => {
    const o = await paidOrder();
    const stale = await refund({ order_id: o.id, amount: '60.00' });
    expect(stale.state).toBe('requires_funding');
    expect((await h.request('POST', '/v1/refunds', { key: p.secretKey, body: { order_id: o.id, amount: '40.01' } })).body.error.code).toBe('amount_exceeds_refundable');
    await chain.increaseTime(7 * 86_400 + 60);
    await h.services.refunds.runOnce(); // the indexer has not covered the deadline yet: nothing fails
    expect((await get(`/v1/refunds/${stale.id}`)).state).toBe('requires_funding');
    await index();
    await h.services.refunds.runOnce();
    expect(await get(`/v1/refunds/${stale.id}`)).toMatchObject({ state: 'failed', failure_reason: 'deadline_passed' });
    expect((await eventsFor('refund.failed', o.id)).map((e) => e.id)).toEqual([stale.id]);

    // The whole amount is refundable again, with a deadline on the chain's (moved) clock: the router accepts it.
    const again = await refund({ order_id: o.id });
    expect(again).toMatchObject({ amount: '100.00', state: 'requires_funding', funding_required: '90600000' });
    const buyerBefore = await usdc(buyer.address);
    await fund(again);
    await index();
    expect(await usdc(buyer.address)).toBe(buyerBefore + 100_000_000n);
    expect(await get(`/v1/orders/${o.id}`)).toMatchObject({ state: 'refunded' });
  });
});
