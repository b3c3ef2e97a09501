import { sql } from 'kysely';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { depositDriver } from '../helpers/deposit-flow.js';
import { balanceOf, createFlow, freshAddress, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

for (const DEPTH of [2, 20]) describe(`deposit addresses on anvil (Circle USDC, confirmations ${DEPTH})`, () => {
let f: Flow;
let key: string;
let merchantId: string;
const relayerKey = generatePrivateKey();
beforeAll(async () => {
  f = await createFlow({ confirmations: DEPTH, config: { relayerPrivateKey: relayerKey, depositMinSweep: 1_000n } });
  await f.chain.anvil.setBalance({ address: privateKeyToAccount(relayerKey).address, value: 10n ** 20n });
  const s = await setupPlatform(f.h);
  key = s.p.secretKey;
  merchantId = s.m.external_id;
});
afterAll(async () => f?.close());

let seq = 0;
async function depositOrder(amount = '10.00', extra: Record<string, unknown> = {}) {
  const o = await f.h.request('POST', '/v1/orders', { key, body: { merchant_id: merchantId, order_no: `dep_flow_${++seq}`, chain_id: 84532, token: 'USDC', amount, ...extra } });
  expect(o.status, o.text).toBe(201);
  const refund = freshAddress();
  const d = await f.h.request('POST', `/v1/orders/${o.body.id}/deposit_address`, { key, body: { refund_address: refund } });
  expect(d.status, d.text).toBe(200);
  return { id: o.body.id as string, deposit: d.body.deposit_address as Address, refund, order: o.body };
}

const { send, settle, settleExpiring, chainNow, returnsOf, eventsOf } = depositDriver(() => f, DEPTH);
/** A short-lived order (60 s on the chain clock) with its deposit address. */
async function expiringDepositOrder() {
  f.h.services.chains.get(84532).clock.observe(BigInt(await chainNow()));
  return depositOrder('10.00', { expires_in_seconds: 60 });
}
const sweepsOf = async (id: string) =>
  (await sql<{ id: string; state: string; outcome: string | null; tx_hash: string | null; broadcasts: number }>`select id, state, outcome, tx_hash, broadcasts from operator_txs where purpose = 'deposit_sweep' and ref_id = ${id} order by created_at`.execute(f.h.db)).rows;

const read = async (id: string) => (await f.h.request('GET', `/v1/orders/${id}`, { key })).body;

describe('payments', () => {
  it('an exact transfer pays the order through the router (payment_method deposit)', async () => {
    const o = await depositOrder('10.00');
    await send(o.deposit, 10_000_000n);
    await settle();
    const order = await read(o.id);
    expect(order).toMatchObject({ state: 'confirmed', amount_received: '10000000', amount_due: '0', payment_method: 'deposit' });
    expect(order.paid_by.toLowerCase()).toBe(o.deposit.toLowerCase());
    expect(await balanceOf(f.chain, o.deposit)).toBe(0n);
    expect(await f.h.db.selectFrom('unmatched_transfers').select('id').execute()).toHaveLength(0);
  });

  it('under then topped up: order.underpaid, then paid', async () => {
    const o = await depositOrder('10.00');
    await send(o.deposit, 4_000_000n);
    await settle();
    expect(await read(o.id)).toMatchObject({ state: 'pending_payment', amount_received: '4000000', amount_due: '6000000' });
    expect(await eventsOf(o.id)).toContain('order.underpaid');
    await send(o.deposit, 6_000_000n);
    await settle();
    expect(await read(o.id)).toMatchObject({ state: 'confirmed', amount_received: '10000000', amount_due: '0' });
  });

  it('over: paid exactly, the excess returned to the refund address (order.overpaid, payment.returned)', async () => {
    const o = await depositOrder('10.00');
    await send(o.deposit, 12_500_000n);
    await settle();
    expect(await read(o.id)).toMatchObject({ state: 'confirmed', amount_received: '12500000' });
    expect(await balanceOf(f.chain, o.refund)).toBe(2_500_000n);
    const types = await eventsOf(o.id);
    expect(types).toContain('order.overpaid');
    expect(types).toContain('payment.returned');
    // One sweep paid and returned the excess: no second sweep for the same funds.
    const sweeps = await sql<{ id: string }>`select id from operator_txs where purpose = 'deposit_sweep' and ref_id = ${o.id}`.execute(f.h.db);
    expect(sweeps.rows).toHaveLength(1);
  });


  it('late, after another method paid: the transfer is returned whole (payment.returned settled), the order stays paid by the wallet', async () => {
    const o = await depositOrder('10.00');
    await payAsBuyer(f.chain, f.chain.buyers[1]!, o.order);
    await settle();
    await send(o.deposit, 10_000_000n);
    await settle();
    const order = await read(o.id);
    expect(order).toMatchObject({ state: 'confirmed', amount_received: '10000000' });
    expect(order.payment_method).not.toBe('deposit');
    expect(await balanceOf(f.chain, o.refund)).toBe(10_000_000n);
    expect(await balanceOf(f.chain, o.deposit)).toBe(0n);
    const ret = (await f.h.db.selectFrom('events').select(['type', 'data']).where('type', '=', 'payment.returned').execute())
      .map((e) => (e.data as { object: Record<string, unknown> }).object).find((x) => x.order_id === o.id);
    expect(ret).toMatchObject({ reason: 'settled', amount: '10000000', refund_address: o.refund });
  });
});

describe('deadline', () => {
  it('under, then the deadline passes: the order expires and the sweep returns what arrived (payment.returned late)', async () => {
    const o = await expiringDepositOrder();
    await send(o.deposit, 4_000_000n);
    await settle();
    expect(await read(o.id)).toMatchObject({ state: 'pending_payment', amount_received: '4000000', amount_due: '6000000' });
    await f.chain.increaseTime(120);
    expect(await chainNow()).toBeGreaterThan(Number(o.order.eip712.message.deadline));
    await settleExpiring();
    expect(await read(o.id)).toMatchObject({ state: 'expired', amount_received: '4000000' });
    expect(await balanceOf(f.chain, o.refund)).toBe(4_000_000n);
    expect(await balanceOf(f.chain, o.deposit)).toBe(0n);
    expect(await eventsOf(o.id)).toContain('order.expired');
    const rets = await returnsOf(o.id);
    expect(rets).toHaveLength(1);
    expect(rets[0]).toMatchObject({ reason: 'late', amount: '4000000', refund_address: o.refund });
    expect(await sweepsOf(o.id)).toHaveLength(1);
  });

  it('two transfers racing the deadline: the completing one mined past it, the forwarder returns both, the order expires', async () => {
    const o = await expiringDepositOrder();
    const deadline = BigInt(o.order.eip712.message.deadline);
    await send(o.deposit, 4_000_000n);
    await settle();
    expect(await read(o.id)).toMatchObject({ state: 'pending_payment', amount_received: '4000000' });
    expect(BigInt(await chainNow())).toBeLessThan(deadline);
    await f.chain.anvil.setNextBlockTimestamp({ timestamp: deadline + 5n });
    await send(o.deposit, 6_000_000n);
    await settleExpiring();
    const order = await read(o.id);
    expect(order).toMatchObject({ state: 'expired', amount_received: '10000000' });
    expect(order.paid_by ?? null).toBeNull();
    expect(await balanceOf(f.chain, o.refund)).toBe(10_000_000n);
    expect(await balanceOf(f.chain, o.deposit)).toBe(0n);
    const rets = await returnsOf(o.id);
    expect(rets).toHaveLength(1);
    expect(rets[0]).toMatchObject({ reason: 'late', amount: '10000000', refund_address: o.refund });
    expect(await eventsOf(o.id)).not.toContain('order.confirmed');
    expect(await sweepsOf(o.id)).toHaveLength(1);
  });
});

describe('sweep delivery', () => {
  it('a sweep the node dropped is broadcast again and pays the order once', async () => {
    const o = await depositOrder('10.00');
    await send(o.deposit, 10_000_000n);
    await f.chain.mine(DEPTH + 1);
    await f.h.services.indexer.runOnce(84532);
    await f.chain.anvil.setIntervalMining({ interval: 0 });
    await f.chain.anvil.setAutomine(false);
    try {
      await f.h.services.operatorTxs.runOnce(84532);
      const [sent] = await sweepsOf(o.id);
      expect(sent).toMatchObject({ state: 'sent' });
      await f.chain.anvil.dropTransaction({ hash: sent!.tx_hash as Hex });
      await f.h.services.operatorTxs.runOnce(84532);
      expect((await sweepsOf(o.id))[0]).toMatchObject({ state: 'sent', tx_hash: sent!.tx_hash, broadcasts: sent!.broadcasts + 1 });
    } finally {
      await f.chain.anvil.setAutomine(true);
      await f.chain.anvil.setIntervalMining({ interval: 1 });
    }
    await settle();
    expect(await read(o.id)).toMatchObject({ state: 'confirmed', amount_received: '10000000', amount_due: '0', payment_method: 'deposit' });
    expect(await balanceOf(f.chain, o.deposit)).toBe(0n);
    expect(await balanceOf(f.chain, o.refund)).toBe(0n);
    const sweeps = await sweepsOf(o.id);
    expect(sweeps).toHaveLength(1);
    expect(sweeps[0]).toMatchObject({ state: 'done', outcome: 'success' });
    expect(await returnsOf(o.id)).toHaveLength(0);
  });
});
});
