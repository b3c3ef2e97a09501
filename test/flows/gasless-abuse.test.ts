/**
 * Gasless relay abuse (issue 26, items 1–3), on anvil with Circle's FiatTokenV2_2 and real reverts, the relayer's
 * ETH counted before and after. Mining is by hand (automine off), so a payer's front-running transfer and the
 * relayer's transaction can share a block. The chain is reached through a JSON-RPC proxy that logs every call.
 */
import { sql } from 'kysely';
import type { Address, Hex, LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { signOperatorTx } from '../../src/modules/operator-txs/sign.js';
import { receiveWithAuthorizationTypes } from '../../src/modules/relay/typed-data.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../helpers/chain.js';
import { driveOperator, setupPlatform } from '../helpers/flow.js';
import { gasBurner, setLoops } from '../helpers/gas-burner.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startRpcProxy, type RpcCall, type RpcProxy } from '../reliability/helpers/rpc-proxy.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const CEILING = 700_000n;
const relayerKey = generatePrivateKey();
const relayer = privateKeyToAccount(relayerKey).address;
let chain: TestChain;
let proxy: RpcProxy;
let h: Harness;
let setup: Awaited<ReturnType<typeof setupPlatform>>;
const calls: RpcCall[] = [];

beforeAll(async () => {
  chain = await startTestChain({ buyers: 1 });
  proxy = await startRpcProxy(chain.rpcUrl);
  proxy.hook({ request: (c) => (calls.push(c), c) });
  const { signerPrivateKey, operatorPrivateKey } = await authoriseServiceKeys(chain);
  h = await createHarness({
    chains: [{ chainId: chain.chainId, rpcUrl: proxy.url, router: chain.router, usdc: chain.usdc, confirmations: 1 }],
    config: { signerPrivateKey, operatorPrivateKey, serviceTreasury: chain.treasury, relayerPrivateKey: relayerKey, gaslessEnabled: true, gaslessDailyCap: 100, relayerGasLimit: CEILING },
  });
  await chain.anvil.setBalance({ address: relayer, value: 10n ** 20n });
  await chain.anvil.setIntervalMining({ interval: 0 });
  await chain.anvil.setAutomine(false);
  setup = await setupPlatform(h);
});
afterAll(async () => {
  await h?.close();
  await proxy?.close();
  await chain?.stop();
});

const key = () => setup.p.secretKey;
const relayerEth = () => chain.publicClient.getBalance({ address: relayer });
const relayerNonce = () => chain.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' });
const usageToday = async () => (await h.request('GET', '/v1/gasless/usage', { key: key() })).body.days[0];
const count = async (q: string) => Number((await sql<{ n: string }>`select count(*)::text as n from ${sql.raw(q)}`.execute(h.db)).rows[0]!.n);
const post = (token: string, body: unknown, ip?: string) =>
  h.request('POST', `/v1/checkout/sessions/${token}/relay`, { body, headers: ip ? { 'x-forwarded-for': ip } : {} });

async function session(orderNo: string, amount = '10.00', extra: Record<string, unknown> = {}) {
  const s = await h.request('POST', '/v1/checkout/sessions', { key: key(), body: { merchant_id: setup.m.external_id, order_no: orderNo, chain_id: 84532, token: 'USDC', amount, ...extra } });
  expect(s.status, s.text).toBe(201);
  const pub = (await h.request('GET', `/v1/checkout/sessions/${s.body.session_token}`)).body;
  return { token: s.body.session_token as string, pub, order: pub.order };
}

/** The typed data's authorization, signed by an EOA, or (a contract wallet) any 65 bytes it will accept. */
async function authorize(td: { domain: never; message: Record<string, string> }, from: LocalAccount | Address) {
  const m = td.message;
  if (typeof from === 'string') return { from, valid_after: m.validAfter, valid_before: m.validBefore, nonce: m.nonce, signature: `0x${'11'.repeat(65)}` };
  const signature = await from.signTypedData({
    domain: td.domain, types: receiveWithAuthorizationTypes, primaryType: 'ReceiveWithAuthorization',
    message: { from: from.address, to: m.to as Address, value: BigInt(m.value!), validAfter: BigInt(m.validAfter!), validBefore: BigInt(m.validBefore!), nonce: m.nonce as Hex },
  });
  return { from: from.address, valid_after: m.validAfter, valid_before: m.validBefore, nonce: m.nonce, signature };
}

async function buyer(usdc = 10_000_000n, eth = 0n) {
  const b = privateKeyToAccount(generatePrivateKey());
  await chain.fundUsdc(b.address, usdc);
  if (eth > 0n) await chain.anvil.setBalance({ address: b.address, value: eth });
  return b;
}

async function settle() {
  await driveOperator(h, chain);
  await chain.mine(2);
  await h.services.indexer.runOnce(chain.chainId);
}

describe('gasless relay abuse', () => {
  it('an order below GASLESS_MIN_AMOUNT (0.000001 USDC) is offered no gasless and its relay is refused, nothing sent', async () => {
    const s = await session('tiny-1', '0.000001');
    expect(s.pub.gasless).toMatchObject({ enabled: false, reason: 'amount_below_minimum', typed_data: null });
    // The typed data a backend would build anyway (the service offers none): still refused before any RPC.
    const normal = await session('tiny-helper');
    const td = { domain: normal.pub.gasless.typed_data.domain, message: { ...normal.pub.gasless.typed_data.message, value: '1', validBefore: String(Number(s.order.eip712.message.deadline) + 1), nonce: await orderNonce(s.order.id) } };
    const b = await buyer();
    const nonce = await relayerNonce();
    calls.length = 0;
    const r = await post(s.token, await authorize(td as never, b));
    expect([r.status, r.body.error.code]).toEqual([422, 'gasless_refused']);
    expect(r.body.error.message).toMatch(/0\.50 USDC/);
    expect(calls.filter((c) => c.method === 'eth_simulateV1' || c.method === 'eth_call')).toEqual([]);
    expect(await relayerNonce()).toBe(nonce);
  });

  it('a gas-burning ERC-1271 wallet is refused at RELAYER_GAS_LIMIT (422 gas_limit_exceeded), every call capped, nothing sent', async () => {
    const wallet = await gasBurner(chain, 475_000n); // ≈ 19 M gas of looping, then the magic value
    await chain.fundUsdc(wallet, 10_000_000n);
    const s = await session('burner-1', '1.00');
    const [eth, nonce, rows] = [await relayerEth(), await relayerNonce(), await count('relays')];
    calls.length = 0;
    const r = await post(s.token, await authorize(s.pub.gasless.typed_data, wallet));
    expect([r.status, r.body.error?.code], r.text).toEqual([422, 'gas_limit_exceeded']);
    const heavy = calls.filter((c) => c.method === 'eth_simulateV1' || c.method === 'eth_call' || c.method === 'eth_estimateGas');
    expect(heavy.length).toBeGreaterThan(0);
    for (const c of heavy) expect(BigInt(gasOf(c)), c.method).toBeLessThanOrEqual(CEILING);
    expect([await relayerEth(), await relayerNonce(), await count('relays')]).toEqual([eth, nonce, rows]);
  });

  it('a wallet that starts burning gas after its relay was accepted is refused by the sender\'s re-simulation: no gas, payer banned', async () => {
    const wallet = await gasBurner(chain, 0n);
    await chain.fundUsdc(wallet, 10_000_000n);
    const s = await session('burner-2', '1.00');
    const posted = await post(s.token, await authorize(s.pub.gasless.typed_data, wallet));
    expect(posted.status, posted.text).toBe(202);
    await setLoops(chain, wallet, 475_000n);
    const [eth, nonce] = [await relayerEth(), await relayerNonce()];
    await settle();
    expect([await relayerEth(), await relayerNonce()]).toEqual([eth, nonce]);
    const relay = (await h.request('GET', `/v1/orders/${s.order.id}/relay`, { key: key() })).body;
    expect(relay).toMatchObject({ state: 'failed', tx_hash: null, error: { code: 'simulation_failed' } });
    await setLoops(chain, wallet, 0n);
    const other = await session('burner-3', '1.00');
    const again = await post(other.token, await authorize(other.pub.gasless.typed_data, wallet));
    expect([again.status, again.body.error?.code]).toEqual([422, 'gasless_refused']);
    expect(again.body.error.message).toMatch(/until \d{4}-\d\d-\d\dT.*invalid signature/);
  });

  it('the relayer never signs above the ceiling; every relayer transaction recorded is within it', async () => {
    const account = privateKeyToAccount(relayerKey);
    const tx = { chainId: chain.chainId, to: chain.router, data: '0x' as Hex, nonce: 0n, gas: CEILING + 1n, fees: { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n } };
    await expect(signOperatorTx(account, tx, CEILING)).rejects.toThrow(/above the ceiling/);
    const over = await sql<{ n: string }>`select count(*)::text as n from operator_txs where key_role = 'relayer' and gas_limit > ${CEILING.toString()}::bigint and state <> 'queued'`.execute(h.db);
    expect(over.rows[0]!.n).toBe('0');
  });

  it('one relay in flight per payer across orders, decided by the database when two race', async () => {
    const b = await buyer(50_000_000n);
    const [s1, s2] = [await session('payer-race-1'), await session('payer-race-2')];
    const bodies = [await authorize(s1.pub.gasless.typed_data, b), await authorize(s2.pub.gasless.typed_data, b)];
    const answers = await Promise.all([post(s1.token, bodies[0]), post(s2.token, bodies[1])]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    expect(answers.find((a) => a.status === 409)!.body.error.code).toBe('relay_in_flight');
    await settle();
    // Once the first is done, the payer relays the other.
    const second = answers.findIndex((a) => a.status === 409);
    expect((await post([s1, s2][second]!.token, bodies[second])).status).toBe(202);
    await settle();
  });

  it('a wallet hammering the endpoint with a gas-burning invalid signature gets 429 after 10 refusals; the RPC it costs is bounded', async () => {
    const wallet = await gasBurner(chain, 475_000n, false);
    const s = await session('hammer-1', '1.00');
    const body = await authorize(s.pub.gasless.typed_data, wallet);
    calls.length = 0;
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await post(s.token, body, '203.0.113.77'));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(422));
    expect(statuses.slice(10)).toEqual(Array(20).fill(429));
    expect(answers[10]!.body.error.code).toBe('rate_limited');
    expect(Number(answers[10]!.headers.get('retry-after'))).toBeGreaterThan(0);
    const sims = calls.filter((c) => c.method === 'eth_simulateV1');
    expect(sims).toHaveLength(10);
    for (const c of calls.filter((c) => ['eth_simulateV1', 'eth_call', 'eth_estimateGas'].includes(c.method))) expect(BigInt(gasOf(c))).toBeLessThanOrEqual(CEILING);
    expect(calls.length).toBeLessThanOrEqual(30); // ≤ 3 per refusal (head, simulation, …), none for the 20 limited
    // Another address is not held back by it.
    expect((await post(s.token, body, '203.0.113.78')).status).toBe(422);
  });

  it('the relayer\'s daily budget: concurrent accepts cannot overshoot it; past it 503 gasless_unavailable with Retry-After, one alert, budget_exhausted in the read; spend settles to actual', async () => {
    const day = async () => (await sql<{ reserved: string; spent: string }>`select reserved_wei::text as reserved, spent_wei::text as spent from relayer_budget_days order by day desc limit 1`.execute(h.db)).rows[0]!;
    const first = await session('budget-0');
    const b0 = await buyer();
    const p0 = await post(first.token, await authorize(first.pub.gasless.typed_data, b0));
    expect(p0.status, p0.text).toBe(202);
    const reservation = BigInt((await sql<{ r: string }>`select reserved_wei::text as r from relays where id = ${p0.body.id}`.execute(h.db)).rows[0]!.r);
    expect(reservation).toBeGreaterThan(0n);
    await settle();
    const spentBefore = BigInt((await day()).spent);
    const budget = spentBefore + (reservation * 5n) / 2n; // room for two more relays, not three
    const saved = h.config.relayerDailyBudgetWei;
    h.config.relayerDailyBudgetWei = budget;
    try {
      const sessions = await Promise.all([1, 2, 3, 4, 5].map((i) => session(`budget-${i}`)));
      const bodies: Awaited<ReturnType<typeof authorize>>[] = [];
      for (const s of sessions) bodies.push(await authorize(s.pub.gasless.typed_data, await buyer()));
      const [eth, nonce] = [await relayerEth(), await relayerNonce()];
      const answers = await Promise.all(sessions.map((s, i) => post(s.token, bodies[i])));
      const accepted = answers.filter((a) => a.status === 202);
      const refused = answers.filter((a) => a.status === 503);
      expect(accepted.length + refused.length).toBe(5);
      expect(accepted.length).toBeGreaterThanOrEqual(1);
      expect(refused.length).toBeGreaterThanOrEqual(2);
      const now = (await day());
      expect(BigInt(now.reserved) + BigInt(now.spent)).toBeLessThanOrEqual(budget);
      const head = (await chain.publicClient.getBlock()).timestamp;
      const toMidnight = 86_400 - Number(head % 86_400n);
      for (const r of refused) {
        expect(r.body.error.code).toBe('gasless_unavailable');
        expect(Math.abs(Number(r.headers.get('retry-after')) - toMidnight)).toBeLessThanOrEqual(5);
      }
      expect(await count(`chain_alerts where kind = 'relayer_budget_exhausted'`)).toBe(1);
      expect((await session('budget-read')).pub.gasless).toMatchObject({ enabled: false, reason: 'budget_exhausted' });
      expect([await relayerEth(), await relayerNonce()]).toEqual([eth, nonce]);
      // Mined, the relays' reservations give way to what they really cost: the day has room again.
      await settle();
      const settled = await day();
      expect(settled.reserved).toBe('0');
      expect(BigInt(settled.spent) - spentBefore).toBe(eth - (await relayerEth()));
      const retry = answers.findIndex((a) => a.status === 503);
      expect((await post(sessions[retry]!.token, bodies[retry])).status).toBe(202);
      await settle();
      expect(await count(`chain_alerts where kind = 'relayer_budget_exhausted'`)).toBe(1);
    } finally {
      h.config.relayerDailyBudgetWei = saved;
    }
  });

  it('a payer who makes its relay revert on chain (funds moved in the same block, higher tip) pays for nothing again: refused 24 h (chain clock) and on that order for good; the slot is given back, the revert counted (last: moves the chain a day ahead)', async () => {
    const attacker = await buyer(10_000_000n, 10n ** 18n);
    const s1 = await session('grief-1');
    const posted = await post(s1.token, await authorize(s1.pub.gasless.typed_data, attacker), '198.51.100.9');
    expect(posted.status, posted.text).toBe(202);
    const before = await usageToday();
    const eth = await relayerEth();
    await h.services.operatorTxs.runOnce(chain.chainId); // simulated on the pending block (fine), signed, broadcast
    const wallet = chain.walletClientFor(attacker);
    await wallet.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'transfer', args: [chain.treasury, 10_000_000n], gas: 100_000n, maxFeePerGas: 200n * 10n ** 9n, maxPriorityFeePerGas: 100n * 10n ** 9n });
    await settle(); // one block: the attacker's transfer first, the relay reverts
    const relay = (await h.request('GET', `/v1/orders/${s1.order.id}/relay`, { key: key() })).body;
    expect(relay).toMatchObject({ state: 'failed', error: { code: 'reverted' } });
    expect(relay.error.message).toMatch(/exceeds balance/);
    const cost = BigInt(relay.gas_cost_wei);
    expect(eth - (await relayerEth())).toBe(cost); // the relayer paid exactly this, once
    expect(BigInt(relay.gas_used)).toBeLessThanOrEqual(CEILING);
    expect(await usageToday()).toMatchObject({ relays: before.relays - 1, reverted: before.reverted + 1, gas_cost_wei: String(BigInt(before.gas_cost_wei) + cost) });

    // Banned: another order, refused before anything is simulated or sent.
    await chain.fundUsdc(attacker.address, 10_000_000n);
    const s2 = await session('grief-2');
    const body2 = await authorize(s2.pub.gasless.typed_data, attacker);
    const nonce = await relayerNonce();
    calls.length = 0;
    const refused = await post(s2.token, body2, '198.51.100.9');
    expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([422, 'gasless_refused', 'from']);
    expect(refused.body.error.message).toMatch(/until \d{4}-\d\d-\d\dT.*exceeds balance/);
    expect(calls.filter((c) => c.method === 'eth_simulateV1' || c.method === 'eth_call')).toEqual([]);
    expect(await relayerNonce()).toBe(nonce);
    expect((await usageToday()).refused).toBe(before.refused + 1);
    // A session locked to that payer says so in its read.
    expect((await session('grief-locked', '10.00', { payer_address: attacker.address })).pub.gasless).toMatchObject({ enabled: false, reason: 'payer_refused' });
    // On the order it made fail, refused for good (shown here with the 24 h ban lifted by hand).
    const ban = (await sql<{ u: string }>`select banned_until::text as u from relay_payers where payer = ${attacker.address}`.execute(h.db)).rows[0]!.u;
    await sql`update relay_payers set banned_until = 0 where payer = ${attacker.address}`.execute(h.db);
    const sameOrder = await post(s1.token, await authorize(s1.pub.gasless.typed_data, attacker));
    expect([sameOrder.status, sameOrder.body.error.code]).toEqual([422, 'gasless_refused']);
    expect(sameOrder.body.error.message).toMatch(/cannot pay order .* gaslessly/);
    await sql`update relay_payers set banned_until = ${ban}::bigint where payer = ${attacker.address}`.execute(h.db);

    // 24 h later on the chain's clock the payer may relay again (a new order).
    await chain.increaseTime(86_400 + 60);
    h.services.chains.get(chain.chainId).clock.observe((await chain.publicClient.getBlock()).timestamp); // new orders' deadlines on it
    const s3 = await session('grief-3');
    const later = await post(s3.token, await authorize(s3.pub.gasless.typed_data, attacker));
    expect(later.status, later.text).toBe(202);
    await settle();
    expect((await h.request('GET', `/v1/orders/${s3.order.id}`, { key: key() })).body.state).toBe('confirmed');
  });
});

/** The `gas` a heavy call carried: eth_simulateV1's call, or eth_call's / eth_estimateGas's transaction (none: unbounded). */
function gasOf(c: RpcCall): string {
  const p = c.params?.[0] as { blockStateCalls?: { calls: { gas?: string }[] }[]; gas?: string };
  const gas = c.method === 'eth_simulateV1' ? p.blockStateCalls?.[0]?.calls[0]?.gas : p.gas;
  return gas ?? String(2n ** 64n);
}

async function orderNonce(orderId: string): Promise<string> {
  const { payOrderNonce } = await import('../../src/modules/relay/typed-data.js');
  return payOrderNonce(await h.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow());
}
