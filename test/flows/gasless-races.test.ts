/**
 * Gasless relay races (issue 17), with 20 confirmations and mining paused (every block is mined by the test,
 * chain time moved with evm_increaseTime):
 *  (a) the relayer's transaction is mined before the order's deadline, the chain's time then runs past the
 *      deadline while the service waits for depth: the order confirms exactly once and never expires;
 *  (b) the relayer's transaction is dropped from the node's pool, then replaced with the same nonce: it is sent
 *      again, exactly one of its hashes is mined, the buyer pays once and the relay's gas is recorded once.
 */
import type { Address, Hex, LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { createOperatorTxs } from '../../src/modules/operator-txs/service.js';
import { receiveWithAuthorizationTypes } from '../../src/modules/relay/typed-data.js';
import { sweepExpiredOrders } from '../../src/workers.js';
import { balanceOf, createFlow, setupPlatform, type Flow } from '../helpers/flow.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const DEPTH = 20;
const relayerKey = generatePrivateKey();
const relayer = privateKeyToAccount(relayerKey).address;
let f: Flow;
let setup: Awaited<ReturnType<typeof setupPlatform>>;
beforeAll(async () => {
  f = await createFlow({ confirmations: DEPTH, config: { relayerPrivateKey: relayerKey, gaslessEnabled: true, gaslessDailyCap: 100 } });
  await f.chain.anvil.setBalance({ address: relayer, value: 10n ** 20n });
  await f.chain.anvil.setIntervalMining({ interval: 0 });
  await f.chain.anvil.setAutomine(false);
  setup = await setupPlatform(f.h);
});
afterAll(async () => f?.close());

const chainNow = async () => Number((await f.chain.publicClient.getBlock({ blockTag: 'latest' })).timestamp);
const key = () => setup.p.secretKey;
const relayerNonce = () => f.chain.publicClient.getTransactionCount({ address: relayer, blockTag: 'latest' });
const eventsOf = async (orderId: string) =>
  (await f.h.db.selectFrom('events').select(['type', 'data']).execute()).filter((e) => JSON.stringify(e.data).includes(orderId)).map((e) => e.type).sort();
const intentOf = async (relayId: string) => (await f.h.services.operatorTxs.forRef('relay', relayId))[0]!;
const usageGas = async () => BigInt((await f.h.request('GET', '/v1/gasless/usage', { key: key() })).body.days[0]?.gas_cost_wei ?? '0');

/** A zero-ETH buyer with USDC signs the session's typed data as the hosted page does and posts it. */
async function relaySession(orderNo: string, extra: Record<string, unknown> = {}) {
  const buyer: LocalAccount = privateKeyToAccount(generatePrivateKey());
  await f.chain.fundUsdc(buyer.address, 100n * 10n ** 6n);
  const s = await f.h.request('POST', '/v1/checkout/sessions', { key: key(), body: { merchant_id: setup.m.external_id, order_no: orderNo, chain_id: 84532, token: 'USDC', amount: '10.00', ...extra } });
  expect(s.status, s.text).toBe(201);
  const pub = (await f.h.request('GET', `/v1/checkout/sessions/${s.body.session_token}`)).body;
  const td = pub.gasless.typed_data;
  const m = td.message;
  const signature = await buyer.signTypedData({
    domain: td.domain, types: receiveWithAuthorizationTypes, primaryType: 'ReceiveWithAuthorization',
    message: { from: buyer.address, to: m.to as Address, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore), nonce: m.nonce as Hex },
  });
  const body = { from: buyer.address, valid_after: m.validAfter, valid_before: m.validBefore, nonce: m.nonce, signature };
  return { buyer, token: s.body.session_token as string, order: pub.order, body, post: () => f.h.request('POST', `/v1/checkout/sessions/${s.body.session_token}/relay`, { body }) };
}

/** One round of every worker that could act on the order: indexer, expiry sweeper, senders. */
async function workersOnce() {
  await f.h.services.indexer.runOnce(84532);
  await sweepExpiredOrders(f.h.services, 84532);
  await f.h.services.operatorTxs.runOnce(84532);
}

describe('gasless relay races (20 confirmations, mining by hand)', () => {
  it('(a) mined before the deadline, chain time past it while waiting for depth: confirmed exactly once, never expired', async () => {
    f.h.services.chains.get(84532).clock.observe(BigInt(await chainNow()));
    const r = await relaySession('race-a', { expires_in_seconds: 60 });
    const deadline = Number(r.order.eip712.message.deadline);
    await f.chain.anvil.increaseTime({ seconds: deadline - 15 - (await chainNow()) });
    const posted = await r.post();
    expect(posted.status, posted.text).toBe(202);
    await f.h.services.operatorTxs.runOnce(84532); // the relayer sends
    await f.chain.mine(1);
    await workersOnce(); // the sender sees the receipt: mined, not yet at depth
    const mined = await intentOf(posted.body.id);
    expect(mined).toMatchObject({ state: 'mined', outcome: 'success' });
    const minedAt = Number((await f.chain.publicClient.getBlock({ blockNumber: mined.block_number! })).timestamp);
    expect(minedAt).toBeLessThanOrEqual(deadline);

    // The chain's time runs far past the deadline while the payment is short of the depth.
    await f.chain.increaseTime(600); // mines the block that carries the new time
    expect(await chainNow()).toBeGreaterThan(deadline + 500);
    for (let i = 0; i < DEPTH - 5; i++) {
      await f.chain.mine(1);
      await workersOnce();
    }
    const waiting = (await f.h.request('GET', `/v1/checkout/sessions/${r.token}`)).body;
    expect(waiting).toMatchObject({ order: { state: 'pending_payment' }, gasless: { relay: { id: posted.body.id, state: 'submitted' } } });
    // Another relay for the order is refused meanwhile: past the deadline on the chain's clock (checked first).
    const second = await r.post();
    expect([second.status, second.body.error.code]).toEqual([409, 'order_not_payable']);
    expect(await eventsOf(r.order.id)).toEqual([]);

    for (let i = 0; i < 6; i++) {
      await f.chain.mine(1);
      await workersOnce();
    }
    const done = (await f.h.request('GET', `/v1/orders/${r.order.id}`, { key: key() })).body;
    expect(done).toMatchObject({ state: 'confirmed', paid_by: r.buyer.address, tx_hash: mined.tx_hash });
    const relay = (await f.h.request('GET', `/v1/orders/${r.order.id}/relay`, { key: key() })).body;
    expect(relay).toMatchObject({ id: posted.body.id, state: 'succeeded', tx_hash: mined.tx_hash });
    // More rounds change nothing: one confirmation, no expiry, the buyer debited once.
    for (let i = 0; i < 3; i++) {
      await f.chain.mine(1);
      await workersOnce();
    }
    expect(await eventsOf(r.order.id)).toEqual(['checkout.session.completed', 'order.confirmed']);
    expect(await balanceOf(f.chain, r.buyer.address)).toBe(90n * 10n ** 6n);
    expect((await f.h.request('GET', `/v1/orders/${r.order.id}`, { key: key() })).body.state).toBe('confirmed');
  });

  it('(b) dropped from the pool, then replaced by the same nonce: sent again, paid once, the mined hash is the outcome, gas recorded once', async () => {
    const r = await relaySession('race-b');
    const gasBefore = await usageGas();
    const nonceBefore = await relayerNonce();
    const posted = await r.post();
    expect(posted.status, posted.text).toBe(202);
    await f.h.services.operatorTxs.runOnce(84532);
    const sent = await intentOf(posted.body.id);
    expect(sent).toMatchObject({ state: 'sent', broadcasts: 1, nonce: BigInt(nonceBefore) });

    // The node forgets it: the next pass sends the same raw transaction again.
    await f.chain.anvil.dropTransaction({ hash: sent.tx_hash as Hex });
    expect(await f.chain.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })).toBe(nonceBefore);
    await f.h.services.operatorTxs.runOnce(84532);
    expect(await intentOf(posted.body.id)).toMatchObject({ state: 'sent', tx_hash: sent.tx_hash, nonce: sent.nonce, broadcasts: 2 });

    // Still not mined past replaceMs (an instance that replaces at once takes the lease over): same nonce, higher fees.
    await f.h.services.operatorTxs.stop();
    const impatient = createOperatorTxs({ db: f.h.db, config: f.h.config, chains: f.h.services.chains, logger: createLogger('silent', 'devnet'), options: { replaceMs: 0 } });
    impatient.register('relay', f.h.services.relay.onOutcome);
    await impatient.runOnce(84532, 'relayer');
    const replaced = await intentOf(posted.body.id);
    expect(replaced.nonce).toBe(sent.nonce);
    expect(replaced.tx_hash).not.toBe(sent.tx_hash);
    expect(BigInt(replaced.max_fee_per_gas!)).toBeGreaterThan(BigInt(sent.max_fee_per_gas!));

    await f.chain.mine(1);
    await impatient.runOnce(84532, 'relayer');
    const minedRow = await intentOf(posted.body.id);
    expect(minedRow).toMatchObject({ state: 'mined', outcome: 'success', tx_hash: replaced.tx_hash });
    expect(await f.chain.publicClient.getTransactionReceipt({ hash: replaced.tx_hash as Hex })).toMatchObject({ status: 'success' });
    await expect(f.chain.publicClient.getTransactionReceipt({ hash: sent.tx_hash as Hex })).rejects.toThrow();
    // Both hashes stay recorded; the replaced one can never be mined now (its nonce is used), re-sending it is refused.
    await f.chain.publicClient.sendRawTransaction({ serializedTransaction: sent.raw_tx as Hex }).catch(() => undefined);
    for (let i = 0; i < DEPTH + 1; i++) {
      await f.chain.mine(1);
      await f.h.services.indexer.runOnce(84532);
      await impatient.runOnce(84532, 'relayer');
    }
    expect(await intentOf(posted.body.id)).toMatchObject({ state: 'done', outcome: 'success', tx_hash: replaced.tx_hash });
    expect(await relayerNonce()).toBe(nonceBefore + 1);
    const relay = (await f.h.request('GET', `/v1/orders/${r.order.id}/relay`, { key: key() })).body;
    expect(relay).toMatchObject({ id: posted.body.id, state: 'succeeded', tx_hash: replaced.tx_hash });
    const receipt = await f.chain.publicClient.getTransactionReceipt({ hash: replaced.tx_hash as Hex });
    expect(BigInt(relay.gas_cost_wei)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    expect((await usageGas()) - gasBefore).toBe(BigInt(relay.gas_cost_wei));
    expect((await f.h.request('GET', `/v1/orders/${r.order.id}`, { key: key() })).body).toMatchObject({ state: 'confirmed', tx_hash: replaced.tx_hash });
    expect(await eventsOf(r.order.id)).toEqual(['checkout.session.completed', 'order.confirmed']);
    expect(await balanceOf(f.chain, r.buyer.address)).toBe(90n * 10n ** 6n);
    await impatient.stop();
  });
});
