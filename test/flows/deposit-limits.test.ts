import { sql } from 'kysely';
import type { Address, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { depositFactoryAbi } from '../../src/chain/artifacts/DepositFactory.js';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { depositTermsOf } from '../../src/chain/deposit-terms.js';
import { payOrderFromJson } from '../../src/chain/eip712.js';
import type { Config } from '../../src/config.js';
import { IMMEDIATE_RETRIES, retryDelayMs } from '../../src/modules/deposits/sweep.js';
import { depositDriver } from '../helpers/deposit-flow.js';
import { balanceOf, createFlow, freshAddress, setupPlatform, type Flow } from '../helpers/flow.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/**
 * docs/deposits.md "Limits" and "Retries": what bounds the relayer's sweeps (dust minimum, the relayer's daily budget
 * shared with gasless relays, the per-platform daily cap) and what happens to a sweep that reverts. Each with the
 * attack's shape: the limit refuses, the funds stay where only the order or the refund address can get them, and the
 * sweep goes once the limit's day is over. Confirmations 2 (> 1), anvil time moved.
 */
const DEPTH = 2;
const GWEI = 10n ** 9n;

function kit(config: Partial<Config>) {
  const k = {} as { f: Flow; key: string; merchantId: string };
  const relayerKey = generatePrivateKey();
  beforeAll(async () => {
    k.f = await createFlow({ confirmations: DEPTH, buyers: 2, config: { relayerPrivateKey: relayerKey, ...config } });
    await k.f.chain.anvil.setBalance({ address: privateKeyToAccount(relayerKey).address, value: 10n ** 20n });
    const s = await setupPlatform(k.f.h);
    k.key = s.p.secretKey;
    k.merchantId = s.m.external_id;
  });
  afterAll(async () => k.f?.close());

  let seq = 0;
  const { chainNow, send, settleExpiring: settle, returnsOf } = depositDriver(() => k.f, DEPTH);
  const order = async (expiresIn: number) => {
    k.f.h.services.chains.get(84532).clock.observe(BigInt(await chainNow()));
    const o = await k.f.h.request('POST', '/v1/orders', { key: k.key, body: { merchant_id: k.merchantId, order_no: `dep_lim_${++seq}`, chain_id: 84532, token: 'USDC', amount: '10.00', expires_in_seconds: expiresIn } });
    expect(o.status, o.text).toBe(201);
    const refund = freshAddress();
    const d = await k.f.h.request('POST', `/v1/orders/${o.body.id}/deposit_address`, { key: k.key, body: { refund_address: refund } });
    expect(d.status, d.text).toBe(200);
    return { id: o.body.id as string, deposit: d.body.deposit_address as Address, refund, order: o.body };
  };
  /** Anvil to a few seconds into the next UTC day, indexed (the service's chain clock follows the head). */
  const nextUtcDay = async () => {
    const now = await chainNow();
    await k.f.chain.increaseTime(Math.floor(now / 86_400 + 1) * 86_400 + 3 - now);
    await k.f.chain.mine(DEPTH + 1);
    await k.f.h.services.indexer.runOnce(84532);
    expect(Math.floor(await chainNow() / 86_400)).toBe(Math.floor(now / 86_400) + 1);
  };
  const read = async (id: string) => (await k.f.h.request('GET', `/v1/orders/${id}`, { key: k.key })).body;
  const deposit = (id: string) => k.f.h.db.selectFrom('deposits').selectAll().where('order_id', '=', id).executeTakeFirstOrThrow();
  const sweepsOf = async (id: string) => (await sql<{ state: string; outcome: string | null; error: string | null; tx_hash: string | null }>`
    select state, outcome, error, tx_hash from operator_txs where purpose = 'deposit_sweep' and ref_id = ${id} order by created_at, id`.execute(k.f.h.db)).rows;
  const retry = () => k.f.h.services.deposits.retryDue(84532);
  const costOf = async (hash: string) => {
    const r = await k.f.chain.publicClient.getTransactionReceipt({ hash: hash as Hex });
    return r.gasUsed * r.effectiveGasPrice;
  };
  return { k, chainNow, order, send, settle, nextUtcDay, read, deposit, sweepsOf, returnsOf, retry, costOf };
}

describe('DEPOSIT_MIN_SWEEP_AMOUNT: dust is never swept by the relayer', () => {
  const t = kit({ depositMinSweep: 1_000_000n });

  it('expired with 0.50 USDC below the 1.00 minimum: no sweep sent, nor by the pass; anyone returns it to the refund address without the service', async () => {
    const o = await t.order(60);
    await t.send(o.deposit, 500_000n);
    await t.settle();
    await t.k.f.chain.increaseTime(120);
    await t.settle();
    expect(await t.read(o.id)).toMatchObject({ state: 'expired', amount_received: '500000' });
    const dep = await t.deposit(o.id);
    expect(dep.sweep_refused).toMatch(/^dust: holds 500000/);
    expect(dep.next_sweep_at).toBeNull();
    expect(await t.retry()).toBe(0);
    expect(await t.sweepsOf(o.id)).toEqual([]);
    expect(await balanceOf(t.k.f.chain, o.deposit)).toBe(500_000n);

    // The no-service path (docs/deposits.md): a stranger with the public terms and no signature.
    const stranger = t.k.f.chain.walletClientFor(t.k.f.chain.buyers[1]!);
    const terms = depositTermsOf(payOrderFromJson(o.order.eip712), dep.deadline);
    await t.k.f.chain.confirm(await stranger.writeContract({ address: dep.factory as Address, abi: depositFactoryAbi, functionName: 'deployAndSweep', args: [terms, dep.refund_to as Address, '0x'] }));
    await t.settle();
    expect(await balanceOf(t.k.f.chain, o.refund)).toBe(500_000n);
    expect(await balanceOf(t.k.f.chain, o.deposit)).toBe(0n);
    expect(await t.returnsOf(o.id)).toMatchObject([{ reason: 'late', amount: '500000', refund_address: o.refund }]);
  });
});

describe('DEPOSIT_SWEEPS_PER_PLATFORM_PER_DAY', () => {
  const t = kit({ depositSweepsPerPlatformPerDay: 1 });

  it('past the cap an exact payment waits (no sweep, the order pending) until the next UTC day of the chain clock, then pays once', async () => {
    const first = await t.order(86_400);
    await t.send(first.deposit, 10_000_000n);
    await t.settle();
    expect(await t.read(first.id)).toMatchObject({ state: 'confirmed', payment_method: 'deposit' });

    const second = await t.order(86_400);
    await t.send(second.deposit, 10_000_000n);
    await t.settle();
    expect(await t.read(second.id)).toMatchObject({ state: 'pending_payment', amount_received: '10000000', amount_due: '0' });
    const waiting = await t.deposit(second.id);
    expect(waiting.sweep_refused).toMatch(/^platform_cap/);
    expect(waiting.next_sweep_at!.getTime() % 86_400_000).toBe(0);
    expect(await t.retry()).toBe(0);
    expect(await t.sweepsOf(second.id)).toEqual([]);
    expect(await balanceOf(t.k.f.chain, second.deposit)).toBe(10_000_000n);

    await t.nextUtcDay();
    expect(await t.chainNow()).toBeLessThan(Number(second.order.eip712.message.deadline));
    expect(await t.retry()).toBe(1);
    expect(await t.retry()).toBe(0);
    await t.settle();
    expect(await t.read(second.id)).toMatchObject({ state: 'confirmed', payment_method: 'deposit', amount_due: '0' });
    expect(await t.sweepsOf(second.id)).toMatchObject([{ state: 'done', outcome: 'success' }]);
    expect(await balanceOf(t.k.f.chain, second.deposit)).toBe(0n);
    expect(await balanceOf(t.k.f.chain, second.refund)).toBe(0n);
  });
});

describe('RELAYER_DAILY_BUDGET_WEI counts sweeps', () => {
  const t = kit({ relayerDailyBudgetWei: 1n });

  it('a sweep\'s gas joins the relayer\'s day and the platform\'s; the day spent, the next sweep waits for the next day', async () => {
    const first = await t.order(86_400);
    await t.send(first.deposit, 10_000_000n);
    await t.settle();
    expect(await t.read(first.id)).toMatchObject({ state: 'confirmed', payment_method: 'deposit' });
    const [sweep] = await t.sweepsOf(first.id);
    const cost = await t.costOf(sweep!.tx_hash!);
    expect(cost).toBeGreaterThan(0n);
    const day = new Date((await t.chainNow()) * 1000).toISOString().slice(0, 10);
    const usage = (await sql<{ relayer: string; platform: string; deposit: string }>`select
      (select spent_wei::text from relayer_budget_days where chain_id = 84532 and day = ${day}::date) as relayer,
      (select sum(gas_cost_wei)::text from relay_daily_usage where day = ${day}::date) as platform,
      (select sweep_gas_wei::text from deposits where order_id = ${first.id}) as deposit`.execute(t.k.f.h.db)).rows[0]!;
    expect(usage).toEqual({ relayer: cost.toString(), platform: cost.toString(), deposit: cost.toString() });

    const second = await t.order(86_400);
    await t.send(second.deposit, 10_000_000n);
    await t.settle();
    expect(await t.read(second.id)).toMatchObject({ state: 'pending_payment', amount_due: '0' });
    expect((await t.deposit(second.id)).sweep_refused).toMatch(/^relayer_budget/);
    expect(await t.sweepsOf(second.id)).toEqual([]);

    await t.nextUtcDay();
    expect(await t.retry()).toBe(1);
    await t.settle();
    expect(await t.read(second.id)).toMatchObject({ state: 'confirmed', payment_method: 'deposit' });
  });
});

describe('a sweep that reverts', () => {
  const t = kit({});
  const owner = () => t.k.f.chain.walletClientFor(t.k.f.chain.owner);
  const ownerCall = (functionName: 'pause' | 'unpause', tip?: bigint) =>
    owner().writeContract({ address: t.k.f.chain.router, abi: paymentRouterAbi, functionName, ...(tip ? { maxPriorityFeePerGas: tip, maxFeePerGas: tip * 2n } : {}) });

  it('mined behind a pause: charged, tried again at once while refused, then after its back-off by the pass, and pays the order once', async () => {
    const o = await t.order(86_400);
    await t.send(o.deposit, 10_000_000n);
    await t.k.f.chain.mine(DEPTH + 1);
    await t.k.f.h.services.indexer.runOnce(84532);
    await t.k.f.chain.anvil.setIntervalMining({ interval: 0 });
    await t.k.f.chain.anvil.setAutomine(false);
    let reverted: string;
    try {
      await t.k.f.h.services.operatorTxs.runOnce(84532);
      const [sent] = await t.sweepsOf(o.id);
      expect(sent).toMatchObject({ state: 'sent' });
      reverted = sent!.tx_hash!;
      await ownerCall('pause', 50n * GWEI);
      await t.k.f.chain.mine(1);
    } finally {
      await t.k.f.chain.anvil.setAutomine(true);
      await t.k.f.chain.anvil.setIntervalMining({ interval: 1 });
    }
    expect((await t.k.f.chain.publicClient.getTransactionReceipt({ hash: reverted as Hex })).status).toBe('reverted');
    await t.settle();

    const sweeps = await t.sweepsOf(o.id);
    expect(sweeps).toHaveLength(IMMEDIATE_RETRIES);
    expect(sweeps[0]).toMatchObject({ outcome: 'reverted', error: 'EnforcedPause', tx_hash: reverted });
    expect(sweeps.slice(1)).toMatchObject(Array(IMMEDIATE_RETRIES - 1).fill({ outcome: 'rejected', error: 'EnforcedPause', tx_hash: null }));
    const waiting = await t.deposit(o.id);
    expect(waiting).toMatchObject({ sweep_failures: IMMEDIATE_RETRIES, sweep_pending: false, sweep_refused: 'failed: rejected EnforcedPause', sweep_gas_wei: (await t.costOf(reverted)).toString() });
    expect(await t.read(o.id)).toMatchObject({ state: 'pending_payment', amount_due: '0' });
    expect(await t.retry()).toBe(0);

    await t.k.f.chain.confirm(await ownerCall('unpause'));
    await t.k.f.chain.increaseTime(retryDelayMs(IMMEDIATE_RETRIES) / 1000 + 1);
    await t.k.f.chain.mine(DEPTH + 1);
    await t.k.f.h.services.indexer.runOnce(84532);
    expect(await t.retry()).toBe(1);
    await t.settle();
    expect(await t.read(o.id)).toMatchObject({ state: 'confirmed', payment_method: 'deposit', amount_received: '10000000' });
    const done = await t.sweepsOf(o.id);
    expect(done.filter((s) => s.outcome === 'success')).toHaveLength(1);
    expect(await balanceOf(t.k.f.chain, o.deposit)).toBe(0n);
    expect(await balanceOf(t.k.f.chain, o.refund)).toBe(0n);
    expect((await t.deposit(o.id))).toMatchObject({ sweep_failures: 0, next_sweep_at: null });
  });
});
