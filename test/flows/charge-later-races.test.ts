/**
 * Charge later under races and faults on anvil, at 2 and at 20 confirmations: a capture and the payer's reclaim
 * in the same block at the capture deadline (the chain decides, the API follows it: confirmed or voided, never
 * both, money exact); a capture with two service instances (two senders, two sweepers, two indexers) sharing one
 * database goes out once; a capture the node dropped is sent again; a capture refused in simulation (router
 * paused) ends failed and can be asked again.
 */
import { parseEventLogs, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { createServices, type Services } from '../../src/services.js';
import { sweepExpiredAuthorizations } from '../../src/workers.js';
import { balances, changes, chargeLaterFlow, type ChargeLaterFlow } from '../helpers/charge-later-flow.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

describe.each([2, 20])('charge later races on anvil, %i confirmations', (depth) => {
  let t: ChargeLaterFlow;
  let second: Services;
  beforeAll(async () => {
    t = await chargeLaterFlow(depth);
    await t.f.chain.anvil.setAutomine(false);
    second = createServices({ config: t.f.h.config, database: t.f.h.database, logger: t.f.h.services.logger, authSecret: 'test-secret-test-secret-test-secret-0123' });
  });
  afterAll(async () => {
    await second?.operatorTxs.stop();
    await t?.f.close();
  });
  const eventsOf = async (id: string) => (await t.f.h.db.selectFrom('events').select(['type', 'data']).orderBy('created_at').execute())
    .filter((e) => JSON.stringify(e.data).includes(id)).map((e) => e.type);
  const capturedLogs = async (orderId: Hex) => (await t.f.chain.publicClient.getContractEvents({ address: t.f.chain.router, abi: paymentRouterAbi, eventName: 'OrderCaptured', args: { orderId }, fromBlock: 0n })).length;
  const held = () => t.f.chain.publicClient.readContract({ address: t.f.chain.router, abi: paymentRouterAbi, functionName: 'held', args: [t.f.chain.usdc] });
  async function authorizedOrder(amount: string, buyerIndex = 0) {
    const o = await t.manualOrder(amount, { capture_within_seconds: 3600 });
    await t.pay(t.f.chain.buyers[buyerIndex]!, o);
    await t.index();
    expect((await t.get(o.id)).state).toBe('authorized');
    return o;
  }

  for (const winner of ['capture', 'reclaim'] as const) {
    it(`a capture and the payer's reclaim in one block at the deadline: ${winner} wins, the API ends consistent, money exact`, async () => {
      const { f } = t;
      const buyer = f.chain.buyers[1]!;
      const who = t.who(buyer);
      const start = await balances(f.chain, who);
      const o = await authorizedOrder('20.00', 1);
      const deadline = BigInt(o.eip712.message.captureDeadline);
      await f.chain.anvil.setNextBlockTimestamp({ timestamp: deadline - 10n });
      await f.chain.mine(1);
      await t.syncClock();
      expect((await t.api('POST', `/v1/orders/${o.id}/capture`, {})).status).toBe(202);
      await f.h.services.operatorTxs.runOnce(84532); // simulated at deadline − 10: sent, waiting in the mempool
      const [intent] = await f.h.services.operatorTxs.forRef('capture', o.id);
      expect(intent).toMatchObject({ state: 'sent' });
      const reclaim = await t.reclaim(buyer, o.eip712.message.orderId, { gas: 300_000n });
      await f.chain.anvil.setNextBlockTimestamp({ timestamp: winner === 'capture' ? deadline - 1n : deadline });
      await f.chain.mine(1);
      const receipts = await Promise.all([intent!.tx_hash as Hex, reclaim].map((hash) => f.chain.publicClient.getTransactionReceipt({ hash })));
      expect(receipts[0]!.blockNumber).toBe(receipts[1]!.blockNumber);
      expect(receipts.map((r) => r.status)).toEqual(winner === 'capture' ? ['success', 'reverted'] : ['reverted', 'success']);

      await t.drive();
      await t.index();
      await t.sweep();
      await t.drive();
      await t.index();
      const final = await t.get(o.id);
      const events = await eventsOf(o.id);
      const delta = changes(start, await balances(f.chain, who));
      if (winner === 'capture') {
        expect(final).toMatchObject({ state: 'confirmed', amount_captured: '20.00', void_reason: null });
        expect(events).toEqual(['order.authorized', 'order.confirmed']);
        const s = final.computed_split;
        expect(delta).toEqual({ treasury: BigInt(s.service_fee), platform: BigInt(s.platform_fee), merchant: BigInt(s.merchant_available), router: BigInt(s.reserve_hold), payer: -20_000_000n });
      } else {
        expect(final).toMatchObject({ state: 'voided', void_reason: 'reclaimed_by_payer', amount_captured: '0.00', capture_requested_at: null });
        expect(events).toEqual(['order.authorized', 'order.voided']);
        expect(delta).toEqual({ treasury: 0n, platform: 0n, merchant: 0n, router: 0n, payer: 0n });
        // The revert is named by replaying the call on the state after its block, where the reclaim already emptied it.
        expect((await f.h.services.operatorTxs.forRef('capture', o.id))[0]).toMatchObject({ outcome: 'reverted', error: expect.stringMatching(/^(CaptureExpired|NotAuthorized)$/) });
        expect((await t.api('POST', `/v1/orders/${o.id}/capture`, {})).body.error.code).toBe('invalid_state');
      }
      expect(await held()).toBe(0n);
    });
  }

  it("a capture mined at the deadline reverts (CaptureExpired): the request ends failed, the service's void lands, a later capture is refused", async () => {
    const { f } = t;
    const buyer = f.chain.buyers[0]!;
    const who = t.who(buyer);
    const start = await balances(f.chain, who);
    const o = await authorizedOrder('3.00');
    const deadline = BigInt(o.eip712.message.captureDeadline);
    await f.chain.anvil.setNextBlockTimestamp({ timestamp: deadline - 5n });
    await f.chain.mine(1);
    await t.syncClock();
    expect((await t.api('POST', `/v1/orders/${o.id}/capture`, {})).status).toBe(202);
    await f.h.services.operatorTxs.runOnce(84532); // simulated in time, mined too late
    await f.chain.anvil.setNextBlockTimestamp({ timestamp: deadline });
    await t.drive();
    expect((await f.h.services.operatorTxs.forRef('capture', o.id))[0]).toMatchObject({ outcome: 'reverted', error: 'CaptureExpired' });
    expect(await t.get(o.id)).toMatchObject({ state: 'authorized', capture_requested_at: null });
    await t.index();
    await t.sweep();
    await t.drive();
    await t.index();
    expect(await t.get(o.id)).toMatchObject({ state: 'voided', void_reason: 'authorization_expired' });
    expect(await eventsOf(o.id)).toEqual(['order.authorized', 'order.voided']);
    expect(changes(start, await balances(f.chain, who))).toEqual({ treasury: 0n, platform: 0n, merchant: 0n, router: 0n, payer: 0n });
    await t.syncClock();
    expect((await t.api('POST', `/v1/orders/${o.id}/capture`, {})).body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('voided') });
  });

  it('a capture asked with two service instances running goes out once; two sweepers queue one void', async () => {
    const { f } = t;
    const o = await authorizedOrder('9.99');
    const expiring = await authorizedOrder('1.00');
    expect((await t.api('POST', `/v1/orders/${o.id}/capture`, { amount: '9.00' })).status).toBe(202);
    const instances = [f.h.services, second];
    for (let i = 0; i < 6; i++) {
      await Promise.all(instances.map((s) => s.operatorTxs.runOnce(84532)));
      await f.chain.mine(i === 0 ? 1 : depth);
    }
    await Promise.all(instances.map((s) => s.indexer.runOnce(84532)));
    await f.chain.mine(depth);
    await Promise.all(instances.map((s) => s.indexer.runOnce(84532)));
    expect(await capturedLogs(o.eip712.message.orderId)).toBe(1);
    expect(await f.h.services.operatorTxs.forRef('capture', o.id)).toHaveLength(1);
    expect(await t.get(o.id)).toMatchObject({ state: 'confirmed', amount_captured: '9.00' });
    expect((await eventsOf(o.id)).filter((e) => e === 'order.confirmed')).toHaveLength(1);

    await f.chain.anvil.setNextBlockTimestamp({ timestamp: BigInt(expiring.eip712.message.captureDeadline) });
    await f.chain.mine(1);
    await t.index();
    await Promise.all(instances.map((s) => sweepExpiredAuthorizations(s, 84532)));
    await Promise.all(instances.map((s) => sweepExpiredAuthorizations(s, 84532)));
    expect(await f.h.services.operatorTxs.forRef('authorization_void', expiring.id)).toHaveLength(1);
    await t.drive();
    await t.index();
    expect(await t.get(expiring.id)).toMatchObject({ state: 'voided', void_reason: 'authorization_expired' });
  });

  it('a capture the node dropped is broadcast again (same transaction) and lands once', async () => {
    const { f } = t;
    const o = await authorizedOrder('4.00');
    await t.syncClock();
    expect((await t.api('POST', `/v1/orders/${o.id}/capture`, { amount: '2.50' })).status).toBe(202);
    await f.h.services.operatorTxs.runOnce(84532);
    const [sent] = await f.h.services.operatorTxs.forRef('capture', o.id);
    expect(sent).toMatchObject({ state: 'sent', broadcasts: 1 });
    await f.chain.anvil.dropTransaction({ hash: sent!.tx_hash as Hex });
    await f.chain.mine(1);
    expect(await capturedLogs(o.eip712.message.orderId)).toBe(0);
    await f.h.services.operatorTxs.runOnce(84532);
    expect((await f.h.services.operatorTxs.forRef('capture', o.id))[0]).toMatchObject({ tx_hash: sent!.tx_hash, broadcasts: 2 });
    await t.drive();
    await t.index();
    expect(await capturedLogs(o.eip712.message.orderId)).toBe(1);
    expect(await t.get(o.id)).toMatchObject({ state: 'confirmed', amount_captured: '2.50' });
  });

  it('a capture refused in simulation (router paused) ends failed, the order stays authorized, and a new capture lands', async () => {
    const { f } = t;
    const o = await authorizedOrder('6.00');
    await t.syncClock();
    const owner = f.chain.walletClientFor(f.chain.owner);
    const confirm = async (hash: Hex) => { await f.chain.mine(1); return f.chain.publicClient.waitForTransactionReceipt({ hash }); };
    await confirm(await owner.writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'pause' }));
    expect((await t.api('POST', `/v1/orders/${o.id}/capture`, {})).status).toBe(202);
    await t.drive();
    expect((await f.h.services.operatorTxs.forRef('capture', o.id))[0]).toMatchObject({ state: 'rejected', outcome: 'rejected', error: 'EnforcedPause', tx_hash: null });
    expect(await t.get(o.id)).toMatchObject({ state: 'authorized', capture_requested_at: null });
    await confirm(await owner.writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'unpause' }));
    expect((await t.api('POST', `/v1/orders/${o.id}/capture`, {})).status).toBe(202);
    await t.drive();
    await t.index();
    expect(await t.get(o.id)).toMatchObject({ state: 'confirmed', amount_captured: '6.00' });
    const logs = await f.chain.publicClient.getContractEvents({ address: f.chain.router, abi: paymentRouterAbi, eventName: 'OrderCaptured', args: { orderId: o.eip712.message.orderId }, fromBlock: 0n });
    expect(parseEventLogs({ abi: paymentRouterAbi, logs, eventName: 'OrderCaptured' }).map((l) => l.args.captured)).toEqual([6_000_000n]);
  });
});
