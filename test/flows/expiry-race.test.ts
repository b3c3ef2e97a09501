/**
 * Issue 15, scenario 1: an order is expired only when the chain says so. With 20 confirmations a payment
 * mined 15 s before the deadline reaches the indexer long after the deadline has passed on any clock; until
 * the indexer has applied every log up to a block at depth whose timestamp is past the deadline, the order
 * stays pending_payment, its order_no stays taken and no order.expired is sent. Interval mining is paused:
 * every block is mined by the test, and chain time is moved with evm_increaseTime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepExpiredOrders } from '../../src/workers.js';
import { createFlow, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';

const DEPTH = 20;
let f: Flow;
let setup: Awaited<ReturnType<typeof setupPlatform>>;
beforeAll(async () => {
  f = await createFlow({ confirmations: DEPTH });
  await f.chain.anvil.setIntervalMining({ interval: 0 });
  setup = await setupPlatform(f.h);
});
afterAll(async () => { await f.close(); });

const chainNow = async () => Number((await f.chain.publicClient.getBlock({ blockTag: 'latest' })).timestamp);
const orderState = async (id: string) => (await f.h.request('GET', `/v1/orders/${id}`, { key: setup.p.secretKey })).body.state as string;
const eventsOf = async (orderId: string) =>
  (await f.h.db.selectFrom('events').select(['type', 'data']).execute())
    .filter((e) => JSON.stringify(e.data).includes(orderId)).map((e) => e.type).sort();
const newOrder = (orderNo: string) =>
  f.h.request('POST', '/v1/orders', { key: setup.p.secretKey, body: { merchant_id: setup.m.external_id, order_no: orderNo, chain_id: 84532, token: 'USDC', amount: '10.00', expires_in_seconds: 60 } });
/** The indexer catches up (as far as the depth allows), then the sweeper runs. */
const indexAndSweep = async () => {
  await f.h.services.indexer.runOnce(84532);
  await sweepExpiredOrders(f.h.services, 84532);
};

describe('expiry on the chain clock, with 20 confirmations', () => {
  it('a payment mined 15 s before the deadline confirms; the order never expires and its order_no is never freed', async () => {
    f.h.services.chains.get(84532).clock.observe(BigInt(await chainNow()));
    const created = await newOrder('inv-race-1');
    expect(created.status).toBe(201);
    const o = created.body;
    const deadline = Number(o.eip712.message.deadline);
    expect(Math.abs(deadline - (await chainNow()) - 60)).toBeLessThanOrEqual(2); // signed on the chain's clock

    await f.chain.anvil.increaseTime({ seconds: deadline - 15 - (await chainNow()) });
    const { receipt } = await payAsBuyer(f.chain, f.chain.buyers[0]!, o);
    const paidAt = Number((await f.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp);
    expect(paidAt).toBeLessThanOrEqual(deadline);

    // Chain time runs far past the deadline, but the payment is not yet at depth.
    await f.chain.anvil.increaseTime({ seconds: 600 });
    await f.chain.mine(DEPTH - 5);
    expect(await chainNow()).toBeGreaterThan(deadline + 500);
    await indexAndSweep();
    expect(await orderState(o.id)).toBe('pending_payment');
    expect((await newOrder('inv-race-1')).status).toBe(409);
    expect(await eventsOf(o.id)).toEqual([]);

    await f.chain.mine(5);
    await indexAndSweep();
    expect(await orderState(o.id)).toBe('confirmed');
    await indexAndSweep();
    expect(await eventsOf(o.id)).toEqual(['order.confirmed']);
    expect((await newOrder('inv-race-1')).status).toBe(409);
  });

  it('an unpaid order expires only once a block past its deadline is at depth, then frees its order_no', async () => {
    f.h.services.chains.get(84532).clock.observe(BigInt(await chainNow()));
    const o = (await newOrder('inv-race-2')).body;
    const deadline = Number(o.eip712.message.deadline);
    await f.chain.anvil.increaseTime({ seconds: 120 });
    await f.chain.mine(1);
    const pastDeadline = await chainNow();
    expect(pastDeadline).toBeGreaterThan(deadline);

    await f.chain.mine(DEPTH - 1); // the first block past the deadline is one short of the depth
    await indexAndSweep();
    expect(await orderState(o.id)).toBe('pending_payment');
    expect((await newOrder('inv-race-2')).status).toBe(409);

    await f.chain.mine(1);
    await indexAndSweep();
    expect(await orderState(o.id)).toBe('expired');
    expect(await eventsOf(o.id)).toEqual(['order.expired']);
    const again = await newOrder('inv-race-2');
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(o.id);
  });

  it('a checkout session past expires_at stays open while its payment is on its way, then completes', async () => {
    f.h.services.chains.get(84532).clock.observe(BigInt(await chainNow()));
    const s = (await f.h.request('POST', '/v1/checkout/sessions', { key: setup.p.secretKey, body: { merchant_id: setup.m.external_id, order_no: 'inv-race-3', chain_id: 84532, token: 'USDC', amount: '5.00', expires_in_seconds: 60 } })).body;
    const read = async () => (await f.h.request('GET', `/v1/checkout/sessions/${s.session_token}`)).body;
    const session = await read();
    await f.chain.anvil.increaseTime({ seconds: Number(session.order.eip712.message.deadline) - 10 - (await chainNow()) });
    await payAsBuyer(f.chain, f.chain.buyers[1]!, { ...session.order, pay_to: session.order.pay_to });
    await f.chain.anvil.increaseTime({ seconds: 300 });
    await f.chain.mine(DEPTH - 3);
    await indexAndSweep();
    expect(await read()).toMatchObject({ state: 'open', order: { state: 'pending_payment' } });
    await f.chain.mine(3);
    await indexAndSweep();
    expect(await read()).toMatchObject({ state: 'completed', order: { state: 'confirmed' } });
  });
});
