import type { Hex, LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { createOperatorTxs, type OperatorTxs } from '../../src/modules/operator-txs/service.js';
import { balanceOf, createFlow, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';

/**
 * The operator sender's monitoring on anvil (mining paused where it matters): a transaction the node
 * forgot is broadcast again; a stuck one is replaced with the same nonce and fees bumped ≥ 10 %, every hash
 * recorded, and whichever is mined is the outcome; a nonce used outside the service re-queues the intent
 * (never lost, never twice); a second instance sends nothing while the lease is held and takes over once it lapses.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let f: Flow;
let key: string;
let merchantId: string;
let buyer: LocalAccount;
let operator: LocalAccount;

beforeAll(async () => {
  f = await createFlow({ buyers: 1 });
  buyer = f.chain.buyers[0]!;
  operator = privateKeyToAccount(f.h.config.operatorPrivateKey!);
  const s = await setupPlatform(f.h);
  key = s.p.secretKey;
  merchantId = s.m.external_id;
});
afterAll(async () => f?.close());

/** Another instance's sender on the same database, with its own lease holder and timings. */
function otherSender(options: Parameters<typeof createOperatorTxs>[0]['options']): OperatorTxs {
  const s = createOperatorTxs({ db: f.h.db, config: f.h.config, chains: f.h.services.chains, logger: createLogger('silent', 'devnet'), options });
  s.register('refund', f.h.services.refunds.outcomeHandlers.refund);
  s.register('refund_cancel', f.h.services.refunds.outcomeHandlers.refund_cancel);
  return s;
}
const api = (method: string, path: string, body?: unknown) => f.h.request(method, path, { key, body });
async function index() {
  await f.chain.mine(1);
  await f.h.services.indexer.runOnce(f.chain.chainId);
}
/** A paid order and a pending 1.00 refund handed to the sender (queued intent). */
async function queuedRefund(): Promise<string> {
  const o = await api('POST', '/v1/orders', { merchant_id: merchantId, order_no: `s-${Date.now()}-${Math.random()}`, chain_id: 84532, token: 'USDC', amount: '20.00' });
  await payAsBuyer(f.chain, buyer, o.body);
  await index();
  const r = await api('POST', '/v1/refunds', { order_id: o.body.id, amount: '1.00' });
  expect(r.status, r.text).toBe(201);
  await f.h.services.refunds.runOnce();
  return r.body.id;
}
const txOf = async (refundId: string) => (await f.h.services.operatorTxs.forRef('refund', refundId))[0]!;
const attempts = (id: string) => f.h.db.selectFrom('operator_tx_attempts' as never).selectAll().where('operator_tx_id' as never, '=', id as never).execute() as Promise<{ tx_hash: string; max_fee_per_gas: string; max_priority_fee_per_gas: string }[]>;
async function pauseMining() {
  await f.chain.anvil.setIntervalMining({ interval: 0 });
  await f.chain.anvil.setAutomine(false);
}
async function finish(sender: OperatorTxs = f.h.services.operatorTxs) {
  await f.chain.anvil.setAutomine(true);
  for (let i = 0; i < 4; i++) {
    await sender.runOnce(f.chain.chainId);
    await f.chain.mine(1);
  }
  await index();
}

describe('operator sender monitoring', () => {
  it('re-broadcasts a transaction the node forgot (same raw transaction, same hash)', async () => {
    const id = await queuedRefund();
    await pauseMining();
    await f.h.services.operatorTxs.runOnce(f.chain.chainId);
    const sent = await txOf(id);
    expect(sent).toMatchObject({ state: 'sent', broadcasts: 1 });
    await f.chain.anvil.dropTransaction({ hash: sent.tx_hash as Hex });
    await f.h.services.operatorTxs.runOnce(f.chain.chainId);
    expect(await txOf(id)).toMatchObject({ state: 'sent', tx_hash: sent.tx_hash, nonce: sent.nonce, broadcasts: 2 });
    await finish();
    expect(await txOf(id)).toMatchObject({ state: 'done', outcome: 'success', tx_hash: sent.tx_hash });
    expect((await api('GET', `/v1/refunds/${id}`)).body).toMatchObject({ state: 'completed', tx_hash: sent.tx_hash });
  });

  it('replaces a stuck transaction: same nonce, fees bumped ≥ 10 %, each hash recorded, the mined one is the outcome', async () => {
    const id = await queuedRefund();
    await pauseMining();
    const before = await balanceOf(f.chain, buyer.address);
    // The lease is this harness's sender's until it lapses; a sender that replaces at once takes over after that.
    await f.h.services.operatorTxs.runOnce(f.chain.chainId);
    const first = await txOf(id);
    await f.h.services.operatorTxs.stop(); // releases the lease
    const impatient = otherSender({ replaceMs: 0 });
    await impatient.runOnce(f.chain.chainId);
    const replaced = await txOf(id);
    expect(replaced.nonce).toBe(first.nonce);
    expect(replaced.tx_hash).not.toBe(first.tx_hash);
    const [a, b] = await attempts(first.id);
    expect([a!.tx_hash, b!.tx_hash]).toEqual([first.tx_hash, replaced.tx_hash]);
    expect(BigInt(b!.max_fee_per_gas) * 100n).toBeGreaterThanOrEqual(BigInt(a!.max_fee_per_gas) * 110n);
    expect(BigInt(b!.max_priority_fee_per_gas) * 100n).toBeGreaterThanOrEqual(BigInt(a!.max_priority_fee_per_gas) * 110n);
    await f.chain.mine(1);
    await impatient.runOnce(f.chain.chainId);
    await f.chain.mine(1);
    await impatient.runOnce(f.chain.chainId);
    expect(await txOf(id)).toMatchObject({ state: 'done', outcome: 'success', tx_hash: replaced.tx_hash });
    await index();
    expect((await api('GET', `/v1/refunds/${id}`)).body).toMatchObject({ state: 'completed', tx_hash: replaced.tx_hash });
    expect((await balanceOf(f.chain, buyer.address)) - before).toBe(1_000_000n);
    await f.chain.anvil.setAutomine(true);
    await impatient.stop();
  });

  it('a nonce used outside the service: the intent is queued again and sent once with the next nonce', async () => {
    const id = await queuedRefund();
    await pauseMining();
    await f.h.services.operatorTxs.runOnce(f.chain.chainId);
    const sent = await txOf(id);
    await f.chain.anvil.dropTransaction({ hash: sent.tx_hash as Hex });
    // Someone with the operator key uses that nonce for something else.
    await f.chain.walletClientFor(operator).sendTransaction({ to: operator.address, value: 0n, nonce: Number(sent.nonce) });
    await f.chain.mine(1);
    await f.h.services.operatorTxs.runOnce(f.chain.chainId); // consumed by none of ours → queued → sent with the next nonce
    const again = await txOf(id);
    expect(again.nonce).toBe(sent.nonce! + 1n);
    await finish();
    expect(await txOf(id)).toMatchObject({ state: 'done', outcome: 'success' });
    expect((await api('GET', `/v1/refunds/${id}`)).body.state).toBe('completed');
  });

  it('a second instance sends nothing while the lease is held, and takes over once it lapses', async () => {
    await f.h.services.operatorTxs.stop();
    const id = await queuedRefund();
    const holder = otherSender({ leaseMs: 60_000 });
    expect(await holder.runOnce(f.chain.chainId)).toBe(true);
    const other = otherSender({ leaseMs: 60_000 });
    await holder.stop(); // lease released: as if it had lapsed
    const id2 = await queuedRefund();
    const third = otherSender({ leaseMs: 60_000 });
    expect(await other.runOnce(f.chain.chainId)).toBe(true);
    expect(await third.runOnce(f.chain.chainId)).toBe(false); // held by `other`
    await finish(other);
    for (const r of [id, id2]) expect((await api('GET', `/v1/refunds/${r}`)).body.state).toBe('completed');
    await other.stop();
  });
});
