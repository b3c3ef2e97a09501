import { erc20Abi, type Hex, type LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { payOrderFromJson } from '../../src/chain/eip712.js';
import { revertOf } from '../helpers/chain.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { createFlow, driveOperator, setupPlatform, type Flow } from '../helpers/flow.js';

/**
 * Issue 15 item 3 on anvil with mining paused: `POST /_/orders/:id/fail` cancels the PayOrder on chain
 * (cancelOrders) and the order fails only once PayOrderCancelled is indexed. If the payment is mined first
 * the chain wins: the order confirms, order.failed is never sent, and fail answers 409.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let f: Flow;
let key: string;
let merchantId: string;
let buyer: LocalAccount;
const GWEI = 1_000_000_000n;

beforeAll(async () => {
  f = await createFlow({ confirmations: 2, buyers: 1 });
  buyer = f.chain.buyers[0]!;
  const s = await setupPlatform(f.h);
  key = s.p.secretKey;
  merchantId = s.m.external_id;
  await f.chain.confirm(await f.chain.walletClientFor(buyer).writeContract({ address: f.chain.usdc, abi: erc20Abi, functionName: 'approve', args: [f.chain.router, 2n ** 255n] }));
});
afterAll(async () => f?.close());

const fail = (id: string) => f.h.request('POST', `/_/orders/${id}/fail`, { key: ADMIN_TOKEN, body: { reason: 'fraud suspected' } });
const getOrder = async (id: string) => (await f.h.request('GET', `/v1/orders/${id}`, { key })).body;
const eventsOf = async (type: string, id: string) => (await f.h.db.selectFrom('events').selectAll().where('type', '=', type).execute())
  .filter((e) => (e.data as { object: { id: string } }).object.id === id);

async function newOrder() {
  const o = await f.h.request('POST', '/v1/orders', { key, body: { merchant_id: merchantId, order_no: `c-${Date.now()}-${Math.random()}`, chain_id: 84532, token: 'USDC', amount: '25.00' } });
  expect(o.status, o.text).toBe(201);
  return o.body;
}
const payOrder = (o: { eip712: never; signature: string }, tip: bigint) => f.chain.walletClientFor(buyer).writeContract({
  address: f.chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(o.eip712), o.signature as Hex],
  gas: 400_000n, maxPriorityFeePerGas: tip, maxFeePerGas: tip + 10n * GWEI,
});
async function pauseMining() {
  await f.chain.anvil.setIntervalMining({ interval: 0 });
  await f.chain.anvil.setAutomine(false);
}
async function index() {
  await f.chain.mine(2);
  await f.h.services.indexer.runOnce(f.chain.chainId);
}

describe('failing an order cancels it on chain', () => {
  it('payment mined first: the order confirms, order.failed is never sent, a second fail answers 409', async () => {
    const o = await newOrder();
    await pauseMining();
    const pay = await payOrder(o, 50n * GWEI); // in the mempool, not mined: the router does not show it paid yet
    const asked = await fail(o.id);
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body).toMatchObject({ id: o.id, state: 'pending_payment', cancellation: { state: 'pending', reason: 'fraud suspected' } });
    await f.h.services.operatorTxs.runOnce(f.chain.chainId); // cancelOrders simulated, recorded, broadcast at a lower tip
    const [cancel] = await f.h.services.operatorTxs.forRef('order_cancel', o.id);
    expect(cancel!.state).toBe('sent');
    await f.chain.mine(1);
    await f.chain.anvil.setAutomine(true);
    expect((await f.chain.publicClient.getTransactionReceipt({ hash: pay })).status).toBe('success');
    await driveOperator(f.h, f.chain); // cancelOrders skipped the paid id: success, no PayOrderCancelled
    await index();
    expect(await getOrder(o.id)).toMatchObject({ state: 'confirmed' });
    expect(await eventsOf('order.failed', o.id)).toHaveLength(0);
    expect((await eventsOf('order.confirmed', o.id))).toHaveLength(1);
    const again = await fail(o.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invalid_state');
  });

  it('a fail call after the payment is mined (not yet indexed) answers 409 at once', async () => {
    const o = await newOrder();
    await f.chain.confirm(await payOrder(o, 2n * GWEI));
    const res = await fail(o.id);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('paid on chain');
    expect(await f.h.services.operatorTxs.forRef('order_cancel', o.id)).toHaveLength(0);
    await index();
    expect((await getOrder(o.id)).state).toBe('confirmed');
  });

  it('cancellation mined first: payOrder reverts OrderCancelled, the order fails with order.failed once', async () => {
    const o = await newOrder();
    await pauseMining();
    expect((await fail(o.id)).status).toBe(202);
    await f.h.services.operatorTxs.runOnce(f.chain.chainId);
    await f.chain.mine(1); // the cancellation is mined…
    const pay = await payOrder(o, 50n * GWEI); // …before the buyer's payment, however high its tip
    await f.chain.mine(1);
    await f.chain.anvil.setAutomine(true);
    expect((await f.chain.publicClient.getTransactionReceipt({ hash: pay })).status).toBe('reverted');
    expect((await revertOf(f.chain.publicClient.simulateContract({
      account: buyer.address, address: f.chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(o.eip712), o.signature as Hex],
    }))).errorName).toBe('OrderCancelled');
    await driveOperator(f.h, f.chain);
    expect((await getOrder(o.id)).state).toBe('pending_payment'); // until PayOrderCancelled is indexed
    await index();
    expect(await getOrder(o.id)).toMatchObject({ state: 'failed' });
    const failed = await eventsOf('order.failed', o.id);
    expect(failed).toHaveLength(1);
    expect((failed[0]!.data as { object: { failure_reason: string } }).object.failure_reason).toBe('fraud suspected');
    await f.h.services.indexer.runOnce(f.chain.chainId);
    expect(await eventsOf('order.failed', o.id)).toHaveLength(1);
    expect((await fail(o.id)).status).toBe(409);
  });
});
