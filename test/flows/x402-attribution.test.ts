/**
 * Issue 35, "money follows the transfer that paid it": the router's unattributed USDC can be attributed to an x402
 * order only from the transfer that order's authorization made (its AuthorizationUsed directly followed by that
 * Transfer), once, and a payer who cancels its own authorization in the relay's block is banned like any payer-caused
 * revert. Anvil with the real router and Circle's FiatTokenV2_2, depth 2, blocks mined by the test.
 */
import { sql } from 'kysely';
import { encodeFunctionData, erc20Abi, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { receiveWithAuthorizationTypes } from '../../src/modules/relay/typed-data.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { batchCalls, deployBatch } from '../helpers/batch-call.js';
import { balanceOf, createFlow, setupPlatform, type Flow } from '../helpers/flow.js';
import { cancelAuthorization, signTransfer, usdc3009, type SignedTransfer } from '../helpers/transfer-authorization.js';

const CHAIN = 84532;
const ONE = 1_000_000n;
let f: Flow;
let relayer: Address;
const third = privateKeyToAccount(generatePrivateKey());
const relayerKey = generatePrivateKey();
beforeAll(async () => {
  f = await createFlow({ confirmations: 2, config: { relayerPrivateKey: relayerKey, gaslessEnabled: true, gaslessDailyCap: 100, x402SettleWaitMs: 300 } });
  relayer = privateKeyToAccount(relayerKey).address;
  for (const a of [relayer, third.address]) await f.chain.anvil.setBalance({ address: a, value: 10n ** 20n });
  await f.chain.anvil.setIntervalMining({ interval: 0 }); // every block is the test's
}, 120_000);
afterAll(async () => f.close());

const appFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => f.h.app.fetch(new Request(input, init));
const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
const decode = (h: string | null) => JSON.parse(Buffer.from(h!, 'base64').toString('utf8'));

async function buyer(eth = 0n) {
  const b = privateKeyToAccount(generatePrivateKey());
  await f.chain.fundUsdc(b.address, 100n * ONE);
  if (eth > 0n) await f.chain.anvil.setBalance({ address: b.address, value: eth });
  return b;
}

let seq = 0;
async function session(key: string, merchantId: string, extra: Record<string, unknown> = {}) {
  const s = await f.h.request('POST', '/v1/checkout/sessions', { key, body: { merchant_id: merchantId, order_no: `attr-${++seq}`, chain_id: CHAIN, token: 'USDC', amount: '1.00', ...extra } });
  expect(s.status, s.text).toBe(201);
  return s.body as { id: string; order_id: string; session_token: string; x402_url: string };
}

/** Presents `t` (signed by hand, any nonce) at the session's x402 URL as a stock client would. */
async function present(url: string, t: SignedTransfer): Promise<Response> {
  const required = decode((await appFetch(url)).headers.get('PAYMENT-REQUIRED'));
  const authorization = { from: t.from, to: t.to, value: t.value.toString(), validAfter: t.validAfter.toString(), validBefore: t.validBefore.toString(), nonce: t.nonce };
  return appFetch(new Request(url, { headers: { 'PAYMENT-SIGNATURE': encode({ x402Version: 2, accepted: required.accepts[0], payload: { authorization, signature: t.signature } }) } }));
}
const validBefore = async () => (await f.chain.publicClient.getBlock()).timestamp + 200n;

/** Sender, a block, the indexer, `rounds` times (the depth is 2). */
async function drive(rounds = 6) {
  for (let i = 0; i < rounds; i++) {
    await f.h.services.operatorTxs.runOnce(CHAIN);
    await f.chain.mine(1);
    await f.h.services.indexer.runOnce(CHAIN);
  }
}

/** Someone else's USDC sent straight to the router: the pool an attribution could be paid from. */
async function poolOf(value: bigint) {
  const who = await buyer(10n ** 18n);
  await f.chain.confirm(await f.chain.walletClientFor(who).writeContract({ address: f.chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [f.chain.router, value], gas: 100_000n }));
  return who.address;
}

/** balanceOf(router) − reserved − held: USDC in the router that no order owns. */
async function unattributed() {
  const read = (functionName: 'reserved' | 'held') => f.chain.publicClient.readContract({ address: f.chain.router, abi: paymentRouterAbi, functionName, args: [f.chain.usdc] });
  return (await balanceOf(f.chain, f.chain.router)) - (await read('reserved')) - (await read('held'));
}

const orderState = async (key: string, id: string) => (await f.h.request('GET', `/v1/orders/${id}`, { key })).body.state as string;
const intents = async (purpose: string) => Number((await sql<{ n: string }>`select count(*)::text as n from operator_txs where purpose = ${purpose}`.execute(f.h.db)).rows[0]!.n);
async function listedFrom(from: Address) {
  const page = await f.h.request('GET', '/_/unmatched-transfers?limit=100', { key: ADMIN_TOKEN });
  expect(page.status, page.text).toBe(200);
  return (page.body.data as { from: string }[]).filter((t) => t.from === from);
}
const alertsOf = async (who: Address) =>
  (await sql<{ kind: string }>`select kind from chain_alerts where detail::text like ${`%${who}%`}`.execute(f.h.db)).rows.map((r) => r.kind);

/** The hosted page's gasless payment: the session's ReceiveWithAuthorization typed data signed by `b` (nonce = the PayOrder digest). */
async function payGaslessly(token: string, b: LocalAccount): Promise<Hex> {
  const td = (await f.h.request('GET', `/v1/checkout/sessions/${token}`)).body.gasless.typed_data;
  const m = td.message;
  const message = { from: b.address, to: m.to as Address, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore), nonce: m.nonce as Hex };
  const signature = await b.signTypedData({ domain: td.domain, types: receiveWithAuthorizationTypes, primaryType: 'ReceiveWithAuthorization', message });
  const r = await f.h.request('POST', `/v1/checkout/sessions/${token}/relay`, { body: { from: b.address, valid_after: m.validAfter, valid_before: m.validBefore, nonce: m.nonce, signature } });
  expect(r.status, r.text).toBe(202);
  return m.nonce as Hex;
}

describe('x402 attribution follows the transfer', () => {
  it('a charge-later authorization\'s nonce presented as an x402 front-run attributes nothing: the pool keeps its 1.00, the order stays unpaid', async () => {
    const { p, m } = await setupPlatform(f.h, 500, 1000);
    const b = await buyer();
    const later = await session(p.secretKey, m.external_id, { capture_method: 'manual' });
    const d = await payGaslessly(later.session_token, b); // the router pulls 1.00 into escrow with nonce D
    await drive();
    expect(await orderState(p.secretKey, later.order_id)).toBe('authorized');
    // The router's own pull is matched (OrderAuthorized): not listed, no unmatched_transfer alert.
    expect(await listedFrom(b.address)).toEqual([]);
    expect(await alertsOf(b.address)).not.toContain('unmatched_transfer');

    const stranger = await poolOf(ONE);
    await drive(3);
    const pool = await unattributed();
    expect(pool).toBeGreaterThanOrEqual(ONE);
    const s = await session(p.secretKey, m.external_id);
    const res = await present(s.x402_url, await signTransfer(f.chain, b, { to: f.chain.router, value: ONE, nonce: d, validBefore: await validBefore() }));
    expect(res.status).toBe(402);
    expect(decode(res.headers.get('PAYMENT-REQUIRED')).error).toBe('invalid_exact_evm_nonce_already_used');
    await drive();
    expect(await orderState(p.secretKey, s.order_id)).toBe('pending_payment');
    expect(await intents('x402_attribute')).toBe(0);
    expect(await unattributed()).toBe(pool); // nobody's money moved
    expect((await listedFrom(stranger)).length).toBe(1); // the stranger's transfer is still the operator's
  }, 90_000);

  it('one transfer, one attribution: two presentations racing for one 1.00 transfer (a second nonce of the payer used in the same transaction) confirm one order, never two', async () => {
    const { p, m } = await setupPlatform(f.h, 500, 0);
    const b = await buyer();
    const batch = await deployBatch(f.chain, third);
    const paid = await signTransfer(f.chain, b, { to: f.chain.router, value: ONE, validBefore: await validBefore() });
    const decoy = await signTransfer(f.chain, b, { to: f.chain.router, value: ONE, validBefore: await validBefore() });
    // One transaction: N1 moves 1.00 into the router, N2 is used too (cancelled) and moves nothing.
    const cancelSig = await b.signTypedData({
      domain: { name: await f.chain.publicClient.readContract({ address: f.chain.usdc, abi: usdc3009, functionName: 'name' }), version: await f.chain.publicClient.readContract({ address: f.chain.usdc, abi: usdc3009, functionName: 'version' }), chainId: CHAIN, verifyingContract: f.chain.usdc },
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] }, primaryType: 'CancelAuthorization', message: { authorizer: b.address, nonce: decoy.nonce },
    });
    const hash = await batchCalls(f.chain, third, batch, [
      { to: f.chain.usdc, data: encodeFunctionData({ abi: usdc3009, functionName: 'transferWithAuthorization', args: [paid.from, paid.to, paid.value, paid.validAfter, paid.validBefore, paid.nonce, paid.signature] }) },
      { to: f.chain.usdc, data: encodeFunctionData({ abi: usdc3009, functionName: 'cancelAuthorization', args: [b.address, decoy.nonce, cancelSig] }) },
    ]);
    await f.chain.confirm(hash);
    await poolOf(ONE); // others' money the second attribution would be paid from
    await drive(3); // the transfer is indexed (unmatched) before anyone presents
    const pool = await unattributed();
    const [a, c] = [await session(p.secretKey, m.external_id), await session(p.secretKey, m.external_id)];
    const answers = await Promise.all([present(a.x402_url, paid), present(c.x402_url, decoy)]);
    expect(answers.map((r) => r.status)).toEqual([402, 402]); // both used at the token: adopted or refused, not relayed
    await drive(8);
    const states = [await orderState(p.secretKey, a.order_id), await orderState(p.secretKey, c.order_id)];
    expect(states).toEqual(['confirmed', 'pending_payment']);
    expect(await intents('x402_attribute')).toBe(1);
    expect(await unattributed()).toBe(pool - ONE); // exactly the payer's own 1.00 left the pool
    const linked = (await sql<{ x402_payment_id: string | null }>`select x402_payment_id from unmatched_transfers where tx_hash = ${hash}`.execute(f.h.db)).rows;
    expect(linked).toHaveLength(1);
  }, 120_000);
});

describe('a payer cancelling its own x402 authorization', () => {
  it('in the relay\'s block, three rounds: at most one revert paid by the relayer, then the payer is refused', async () => {
    const { p, m } = await setupPlatform(f.h, 500, 0);
    const b = await buyer(10n ** 18n);
    const client = new x402Client();
    client.register('eip155:*', new ExactEvmScheme(b));
    client.setSpendControls({ allowedAssets: [{ network: `eip155:${CHAIN}`, asset: f.chain.usdc, maxAmountPerPayment: '100000000' }] });
    const startNonce = await f.chain.publicClient.getTransactionCount({ address: relayer });
    const reasons: string[] = [];
    for (let round = 0; round < 3; round++) {
      const s = await session(p.secretKey, m.external_id);
      let header: string | null = null;
      const recording = (input: RequestInfo | URL, init?: RequestInit) => {
        const r = new Request(input, init);
        header ??= r.headers.get('PAYMENT-SIGNATURE');
        return appFetch(r);
      };
      const res = await wrapFetchWithPayment(recording, client)(s.x402_url);
      expect(res.status).toBe(402);
      const answer = decode(res.headers.get('PAYMENT-RESPONSE') ?? res.headers.get('PAYMENT-REQUIRED'));
      reasons.push(answer.errorReason ?? answer.error);
      if (answer.errorReason !== 'settlement_pending') continue; // refused before anything was sent
      await f.h.services.operatorTxs.runOnce(CHAIN); // the relay is simulated (fine) and broadcast
      const nonce = decode(header).payload.authorization.nonce as Hex;
      await cancelAuthorization(f.chain, b, nonce, { gas: 200_000n, maxFeePerGas: 200n * 10n ** 9n, maxPriorityFeePerGas: 100n * 10n ** 9n });
      await drive(); // one block: the cancel first, the relay reverts; then its outcome at depth
    }
    expect(reasons).toEqual(['settlement_pending', 'trisettle_payer_refused', 'trisettle_payer_refused']);
    const relays = (await sql<{ state: string; error_message: string }>`select r.state, r.error_message from relays r join orders o on o.id = r.order_id where r.payer = ${b.address}`.execute(f.h.db)).rows;
    expect(relays).toHaveLength(1);
    expect(relays[0]).toMatchObject({ state: 'failed' });
    expect(relays[0]!.error_message).toMatch(/authorization is used or canceled/);
    expect((await f.chain.publicClient.getTransactionCount({ address: relayer })) - startNonce).toBe(1);
    const ban = (await sql<{ banned_until: string | null }>`select banned_until::text as banned_until from relay_payers where payer = ${b.address}`.execute(f.h.db)).rows[0];
    expect(ban?.banned_until).not.toBeNull();
  }, 120_000);
});
