/**
 * Charge later (issue 27) on anvil, at 2 and at 20 confirmations: a manual order is paid like any other and the
 * router holds it (authorized); the service captures part of it (the split of the captured amount to the unit,
 * the rest back to the payer in the same transaction), voids another, voids one whose capture window passed on the
 * chain clock, and a payer reclaims one with the service stopped. Circle's FiatTokenV2_2, the real indexer.
 */
import { parseSignature } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { payOrderFromJson } from '../../src/chain/eip712.js';
import { computeSplit } from '../../src/modules/orders/split.js';
import { createServices } from '../../src/services.js';
import { sweepExpiredAuthorizations } from '../../src/workers.js';
import { balances, changes, chargeLaterFlow, units, type ChargeLaterFlow } from '../helpers/charge-later-flow.js';

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

describe.each([2, 20])('charge later on anvil, %i confirmations', (depth) => {
  let t: ChargeLaterFlow;
  beforeAll(async () => { t = await chargeLaterFlow(depth); });
  afterAll(async () => { await t?.f.close(); });
  const eventsOf = async (id: string) => (await t.f.h.db.selectFrom('events').select(['type', 'data']).orderBy('created_at').execute())
    .filter((e) => JSON.stringify(e.data).includes(id)).map((e) => e.type);

  it('authorize → partial capture: exact deltas equal to computed_split, the rest back to the payer; then a refund within the capture', async () => {
    const { f } = t;
    const buyer = f.chain.buyers[0]!;
    const o = await t.manualOrder('100.00');
    const who = t.who(buyer);
    const start = await balances(f.chain, who);
    const { paid } = await t.pay(buyer, o);
    expect(paid).toEqual([]); // an authorization: no OrderPaid, nobody paid
    expect(changes(start, await balances(f.chain, who))).toEqual({ treasury: 0n, platform: 0n, merchant: 0n, router: 100_000_000n, payer: -100_000_000n });
    await f.chain.mine(depth - 1);
    await f.h.services.indexer.runOnce(84532);
    expect((await t.get(o.id)).state).toBe('pending_payment'); // one block short of the depth
    await t.index();
    expect(await t.get(o.id)).toMatchObject({ state: 'authorized', amount_authorized: '100.00', amount_captured: '0.00', paid_by: buyer.address });
    expect(await f.chain.publicClient.readContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'held', args: [f.chain.usdc] })).toBe(100_000_000n);

    const res = await t.api('POST', `/v1/orders/${o.id}/capture`, { amount: '60.25' });
    expect(res.status, res.text).toBe(202);
    const before = await balances(f.chain, who);
    await t.drive();
    const delta = changes(before, await balances(f.chain, who));
    await t.index();
    const done = await t.get(o.id);
    expect(done).toMatchObject({ state: 'confirmed', amount_captured: '60.25', amount_authorized: '100.00', payment_method: 'authorization' });
    const s = done.computed_split;
    expect(s).toEqual(Object.fromEntries(Object.entries(computeSplit(60_250_000n, 100, 500, 1000)).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), String(v)])));
    expect(delta).toEqual({
      treasury: BigInt(s.service_fee), platform: BigInt(s.platform_fee), merchant: BigInt(s.merchant_available),
      router: BigInt(s.reserve_hold) - 100_000_000n, payer: 39_750_000n,
    });
    expect(await eventsOf(o.id)).toEqual(['order.authorized', 'order.confirmed']);

    // Refunds work as for any payment, up to the captured amount.
    expect((await t.api('POST', '/v1/refunds', { order_id: o.id, amount: '60.26' })).body.error.code).toBe('amount_exceeds_refundable');
    const r = await t.api('POST', '/v1/refunds', { order_id: o.id, amount: '1.00' });
    expect(r.body).toMatchObject({ state: 'pending', reserve_portion: '1000000' });
    const beforeRefund = await balances(f.chain, who);
    await f.h.services.refunds.runOnce();
    await t.drive();
    await t.index();
    expect(changes(beforeRefund, await balances(f.chain, who))).toMatchObject({ payer: 1_000_000n, router: -1_000_000n, merchant: 0n });
    expect(await t.get(o.id)).toMatchObject({ state: 'partially_refunded', refunded_amount: '1.00' });
  });

  it('paid with an EIP-2612 permit in one transaction (payOrderWithPermit), a manual order is authorized', async () => {
    const { f } = t;
    const buyer = f.chain.buyers[1]!;
    const o = await t.manualOrder('2.00');
    const order = payOrderFromJson(o.eip712);
    const nonce = await f.chain.publicClient.readContract({ address: f.chain.usdc, abi: circleUsdcAbi, functionName: 'nonces', args: [buyer.address] });
    const permit = await buyer.signTypedData({
      domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: f.chain.usdc },
      types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
      primaryType: 'Permit', message: { owner: buyer.address, spender: f.chain.router, value: order.amount, nonce, deadline: order.deadline },
    });
    const { r, s: sig, v, yParity } = parseSignature(permit);
    await f.chain.confirm(await f.chain.walletClientFor(buyer).writeContract({
      address: f.chain.router, abi: paymentRouterAbi, functionName: 'payOrderWithPermit', args: [order, o.signature, order.deadline, Number(v ?? BigInt(yParity + 27)), r, sig],
    }));
    await t.index();
    expect(await t.get(o.id)).toMatchObject({ state: 'authorized', amount_authorized: '2.00', paid_by: buyer.address });
  });

  it('authorize → void: the whole authorization back to the payer, voided (requested)', async () => {
    const { f } = t;
    const buyer = f.chain.buyers[1]!;
    const o = await t.manualOrder('12.345678');
    await t.pay(buyer, o);
    await t.index();
    const who = t.who(buyer);
    const before = await balances(f.chain, who);
    expect((await t.api('POST', `/v1/orders/${o.id}/void`)).status).toBe(202);
    await t.drive();
    await t.index();
    expect(changes(before, await balances(f.chain, who))).toEqual({ treasury: 0n, platform: 0n, merchant: 0n, router: -12_345_678n, payer: 12_345_678n });
    expect(await t.get(o.id)).toMatchObject({ state: 'voided', void_reason: 'requested', amount_captured: '0.00' });
    expect(await eventsOf(o.id)).toEqual(['order.authorized', 'order.voided']);
    expect((await t.api('POST', `/v1/orders/${o.id}/capture`, {})).body.error.code).toBe('invalid_state');
  });

  it('authorize → capture_before passes on the chain clock → the service voids it (authorization_expired); no capture after', async () => {
    const { f } = t;
    const buyer = f.chain.buyers[0]!;
    const o = await t.manualOrder('7.00', { capture_within_seconds: 3600 });
    await t.pay(buyer, o);
    await t.index();
    expect((await t.get(o.id)).state).toBe('authorized');
    // The window ends on chain; until a block past it is at depth nothing is voided.
    await f.chain.anvil.setNextBlockTimestamp({ timestamp: BigInt(o.eip712.message.captureDeadline) });
    await f.chain.mine(1);
    await t.syncClock();
    expect((await t.api('POST', `/v1/orders/${o.id}/capture`, {})).body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('capture window ended') });
    await f.chain.mine(depth - 1);
    await f.h.services.indexer.runOnce(84532);
    await t.sweep();
    expect(await f.h.services.operatorTxs.forRef('authorization_void', o.id)).toEqual([]);
    await t.index();
    await t.sweep();
    await t.sweep();
    expect(await f.h.services.operatorTxs.forRef('authorization_void', o.id)).toHaveLength(1);
    const before = await balances(f.chain, t.who(buyer));
    await t.drive();
    await t.index();
    expect(changes(before, await balances(f.chain, t.who(buyer)))).toMatchObject({ payer: 7_000_000n, router: -7_000_000n });
    expect(await t.get(o.id)).toMatchObject({ state: 'voided', void_reason: 'authorization_expired' });
  });

  it("the payer's own reclaim while the service is stopped; restarted, the order is voided (reclaimed_by_payer)", async () => {
    const { f } = t;
    const buyer = f.chain.buyers[1]!;
    const o = await t.manualOrder('3.50', { capture_within_seconds: 3600 });
    await t.pay(buyer, o);
    await t.index();
    expect((await t.get(o.id)).state).toBe('authorized');
    // The service is down (no indexer, no workers) from here on: the payer waits out the window and reclaims.
    await f.h.services.operatorTxs.stop();
    await f.chain.anvil.setNextBlockTimestamp({ timestamp: BigInt(o.eip712.message.captureDeadline) + 5n });
    await f.chain.mine(1);
    const before = await balances(f.chain, t.who(buyer));
    const hash = await t.reclaim(buyer, o.eip712.message.orderId);
    await f.chain.confirm(hash);
    expect(changes(before, await balances(f.chain, t.who(buyer)))).toMatchObject({ payer: 3_500_000n, router: -3_500_000n, merchant: 0n });
    await f.chain.mine(depth);

    // Restarted: a new instance on the same database; its sweeper runs first, then its indexer catches up.
    const restarted = createServices({ config: f.h.config, database: f.h.database, logger: f.h.services.logger, authSecret: 'test-secret-test-secret-test-secret-0123' });
    await sweepExpiredAuthorizations(restarted, 84532);
    await restarted.indexer.runOnce(84532);
    await sweepExpiredAuthorizations(restarted, 84532);
    for (let i = 0; i < 3; i++) {
      await restarted.operatorTxs.runOnce(84532);
      await f.chain.mine(depth);
    }
    await restarted.indexer.runOnce(84532);
    await restarted.operatorTxs.stop();
    expect(await t.get(o.id)).toMatchObject({ state: 'voided', void_reason: 'reclaimed_by_payer' });
    expect(await eventsOf(o.id)).toEqual(['order.authorized', 'order.voided']);
    // Whatever the sweeper asked, nothing more moved: what the router holds is exactly the authorizations still open.
    const held = await f.chain.publicClient.readContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'held', args: [f.chain.usdc] });
    expect(held).toBe(2_000_000n);
    expect(units((await t.api('GET', '/v1/balance')).body.authorized)).toBe(held);
  });
});
