import type { Hex, LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { refundOrderFromJson } from '../../src/chain/eip712.js';
import { revertOf } from '../helpers/chain.js';
import { balanceOf, createFlow, driveOperator, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';

/**
 * Issue 15 item 2 end to end on anvil, through the public API, with 2 confirmations: the operator's refund
 * A reverts (the owner paused the router at a higher tip, then unpaused). A stays open and counts against
 * the refundable amount; it is retried and completes, or it is cancelled on chain and only then failed,
 * after which its calldata can never pay. The buyer never receives both A and a later B.
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
});
afterAll(async () => f?.close());

const api = (method: string, path: string, body?: unknown) => f.h.request(method, path, { key, body });
const owner = () => f.chain.walletClientFor(f.chain.owner);
/** Past the confirmation depth (2), then the indexer applies everything. */
async function index() {
  await f.chain.mine(2);
  await f.h.services.indexer.runOnce(f.chain.chainId);
}

async function paidOrder(): Promise<{ id: string }> {
  const o = await api('POST', '/v1/orders', { merchant_id: merchantId, order_no: `o-${Date.now()}-${Math.random()}`, chain_id: 84532, token: 'USDC', amount: '100.00' });
  expect(o.status, o.text).toBe(201);
  await payAsBuyer(f.chain, buyer, o.body);
  await index();
  expect((await api('GET', `/v1/orders/${o.body.id}`)).body.state).toBe('confirmed');
  return o.body;
}

async function ownerCall(functionName: 'pause' | 'unpause', tip?: bigint): Promise<Hex> {
  return owner().writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName, ...(tip ? { maxPriorityFeePerGas: tip, maxFeePerGas: tip * 2n } : {}) });
}

/** What a buyer could do with a refund's public calldata: send it again. */
const resend = (r: { eip712: never; signature: string }) => f.chain.publicClient.simulateContract({
  account: buyer.address, address: f.chain.router, abi: paymentRouterAbi, functionName: 'refund', args: [refundOrderFromJson(r.eip712), r.signature as Hex],
});

/** The operator's refund transaction is in the mempool when the owner pauses at a higher tip: mined after the pause, it reverts. */
async function revertBehindPause(refundId: string) {
  await f.chain.anvil.setIntervalMining({ interval: 0 });
  await f.chain.anvil.setAutomine(false);
  await f.h.services.refunds.runOnce();
  await f.h.services.operatorTxs.runOnce(f.chain.chainId);
  const [tx] = await f.h.services.operatorTxs.forRef('refund', refundId);
  expect(tx).toMatchObject({ state: 'sent' });
  await ownerCall('pause', 50n * GWEI);
  await f.chain.mine(1);
  await ownerCall('unpause');
  await f.chain.mine(1);
  await f.chain.anvil.setAutomine(true);
  expect((await f.chain.publicClient.getTransactionReceipt({ hash: tx!.tx_hash as Hex })).status).toBe('reverted');
  await driveOperator(f.h, f.chain);
  const [done] = await f.h.services.operatorTxs.forRef('refund', refundId);
  expect(done).toMatchObject({ state: 'done', outcome: 'reverted', error: 'EnforcedPause' });
  expect(done!.gas_used).toBeGreaterThan(0n);
}

describe('a reverted operator refund', () => {
  it('stays open (B refused meanwhile), is retried on its schedule and completes once; its calldata never pays again', async () => {
    const o = await paidOrder();
    const before = await balanceOf(f.chain, buyer.address);
    const a = (await api('POST', '/v1/refunds', { order_id: o.id, amount: '5.00' })).body;
    expect(a).toMatchObject({ state: 'pending', attempts: 0, cancellation: null });

    await revertBehindPause(a.id);
    expect((await api('GET', `/v1/refunds/${a.id}`)).body).toMatchObject({ state: 'pending', attempts: 1, failure_reason: null });
    // A still holds its 5.00: a refund of the whole order is refused while A is open.
    const b = await api('POST', '/v1/refunds', { order_id: o.id, amount: '100.00' });
    expect(b.status).toBe(422);
    expect(b.body.error.code).toBe('amount_exceeds_refundable');
    // Not before its retry time (30 s after the first failure)…
    await f.h.services.refunds.runOnce();
    expect(await f.h.services.operatorTxs.forRef('refund', a.id)).toHaveLength(1);
    // …then sent again (the schedule's wait stood in for by moving the row's retry time).
    await f.h.db.updateTable('refunds').set({ next_attempt_at: new Date() } as never).where('id', '=', a.id).execute();
    await f.h.services.refunds.runOnce();
    await driveOperator(f.h, f.chain);
    await index();
    expect((await api('GET', `/v1/refunds/${a.id}`)).body).toMatchObject({ state: 'completed', attempts: 2 });
    expect((await balanceOf(f.chain, buyer.address)) - before).toBe(5_000_000n);
    expect((await revertOf(resend(a))).errorName).toBe('RefundAlreadyUsed');
    const cancel = await api('POST', `/v1/refunds/${a.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('invalid_state');
  });

  it('cancelled on chain by the platform: open until RefundCancelled is indexed, then failed; its calldata reverts; B pays once', async () => {
    const o = await paidOrder();
    const before = await balanceOf(f.chain, buyer.address);
    const a = (await api('POST', '/v1/refunds', { order_id: o.id, amount: '5.00' })).body;
    await revertBehindPause(a.id);

    const asked = await api('POST', `/v1/refunds/${a.id}/cancel`);
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ state: 'pending', cancellation: 'pending' });
    expect((await api('POST', `/v1/refunds/${a.id}/cancel`)).status).toBe(200);
    await driveOperator(f.h, f.chain); // cancelRefund mined and final; not yet indexed
    expect((await api('GET', `/v1/refunds/${a.id}`)).body).toMatchObject({ state: 'pending', cancellation: 'pending' });
    expect((await api('POST', '/v1/refunds', { order_id: o.id, amount: '100.00' })).body.error.code).toBe('amount_exceeds_refundable');
    await index();
    expect((await api('GET', `/v1/refunds/${a.id}`)).body).toMatchObject({ state: 'failed', failure_reason: 'cancelled', cancellation: 'cancelled' });
    const failed = (await f.h.db.selectFrom('events').selectAll().where('type', '=', 'refund.failed').execute())
      .filter((e) => (e.data as { object: { id: string } }).object.id === a.id);
    expect(failed).toHaveLength(1);
    expect((await revertOf(resend(a))).errorName).toBe('RefundAlreadyUsed');

    // The amount is free again: B for the whole order (9.40 from the reserve, 90.60 funded) pays once.
    const b = await api('POST', '/v1/refunds', { order_id: o.id, amount: '100.00' });
    expect(b.status, b.text).toBe(201);
    await f.chain.anvil.setBalance({ address: buyer.address, value: 10n ** 20n });
    const w = f.chain.walletClientFor(buyer); // the buyer funds its own refund's remainder here, for brevity
    await f.chain.confirm(await w.writeContract({ address: f.chain.usdc, abi: [{ type: 'function', name: 'approve', stateMutability: 'nonpayable', inputs: [{ name: 's', type: 'address' }, { name: 'a', type: 'uint256' }], outputs: [{ type: 'bool' }] }], functionName: 'approve', args: [f.chain.router, BigInt(b.body.funding_required)] }));
    await f.chain.confirm(await w.writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'refund', args: [refundOrderFromJson(b.body.eip712), b.body.signature as Hex] }));
    await index();
    expect((await api('GET', `/v1/refunds/${b.body.id}`)).body.state).toBe('completed');
    // Net for the buyer: +100.00 from B's refund minus the 90.60 it funded itself; A paid nothing.
    expect((await balanceOf(f.chain, buyer.address)) - before).toBe(9_400_000n);
  });

  it('retries exhausted: the service cancels it on chain (works while paused), and it fails only once that is indexed', async () => {
    const o = await paidOrder();
    const a = (await api('POST', '/v1/refunds', { order_id: o.id, amount: '2.00' })).body;
    await f.chain.confirm(await ownerCall('pause'));
    await f.h.db.updateTable('refunds').set({ attempts: 5 } as never).where('id', '=', a.id).execute();
    await f.h.services.refunds.runOnce();
    await driveOperator(f.h, f.chain); // refund rejected in simulation (EnforcedPause) → cancelRefund → mined
    const txs = await f.h.services.operatorTxs.forRef('refund', a.id);
    expect(txs.map((t) => [t.state, t.error, t.nonce])).toEqual([['rejected', 'EnforcedPause', null]]);
    expect((await f.h.services.operatorTxs.forRef('refund_cancel', a.id)).map((t) => t.outcome)).toEqual(['success']);
    expect((await api('GET', `/v1/refunds/${a.id}`)).body).toMatchObject({ state: 'pending', attempts: 6, cancellation: 'pending' });
    await index();
    expect((await api('GET', `/v1/refunds/${a.id}`)).body).toMatchObject({ state: 'failed', failure_reason: 'retries_exhausted: EnforcedPause' });
    await f.chain.confirm(await ownerCall('unpause'));
    expect((await revertOf(resend(a))).errorName).toBe('RefundAlreadyUsed');
  });
});
