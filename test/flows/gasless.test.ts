/**
 * Gasless payment (issue 17): a buyer with USDC and no ETH signs Circle's ReceiveWithAuthorization; the
 * service relays payOrderWithAuthorization with its relayer key through the operator outbox. Real chain,
 * real router, Circle's FiatTokenV2_2 behind its proxy.
 */
import { sql } from 'kysely';
import { getAddress, hashTypedData, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { receiveWithAuthorizationTypes } from '../../src/modules/relay/typed-data.js';
import { deploySafe, deploySafeStack, signSafeHash } from '../helpers/safe.js';
import { balanceOf, createFlow, driveOperator, setupPlatform, type Flow } from '../helpers/flow.js';

let f: Flow;
let relayer: Address;
const relayerKey = generatePrivateKey();
beforeAll(async () => {
  f = await createFlow({ confirmations: 1, config: { relayerPrivateKey: relayerKey, gaslessEnabled: true, gaslessDailyCap: 100 } });
  relayer = privateKeyToAccount(relayerKey).address;
  await f.chain.anvil.setBalance({ address: relayer, value: 10n ** 20n });
});
afterAll(async () => f.close());

type TypedData = { domain: { name: string; version: string; chainId: number; verifyingContract: Address }; message: Record<string, string | null> };

/** What the hosted page does: fill in `from`, sign the typed data as given, and post the five fields. */
async function authorize(buyer: LocalAccount, td: TypedData, over: Partial<Record<'validAfter' | 'validBefore' | 'nonce' | 'value', string>> = {}) {
  const m: Record<string, string | null> = { ...td.message, ...over };
  const message = { from: buyer.address, to: m.to as Address, value: BigInt(m.value!), validAfter: BigInt(m.validAfter!), validBefore: BigInt(m.validBefore!), nonce: m.nonce as Hex };
  const signature = await buyer.signTypedData({
    domain: td.domain,
    types: { ReceiveWithAuthorization: [
      { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
    ] },
    primaryType: 'ReceiveWithAuthorization',
    message,
  });
  return { from: buyer.address, valid_after: m.validAfter!, valid_before: m.validBefore!, nonce: m.nonce!, signature };
}

async function zeroEthBuyer(usdc = 1_000n * 10n ** 6n) {
  const buyer = privateKeyToAccount(generatePrivateKey());
  await f.chain.fundUsdc(buyer.address, usdc);
  return buyer;
}

async function session(key: string, merchantId: string, orderNo: string, extra: Record<string, unknown> = {}) {
  const s = await f.h.request('POST', '/v1/checkout/sessions', { key, body: { merchant_id: merchantId, order_no: orderNo, chain_id: 84532, token: 'USDC', amount: '12.345678', ...extra } });
  expect(s.status, s.text).toBe(201);
  const pub = await f.h.request('GET', `/v1/checkout/sessions/${s.body.session_token}`);
  expect(pub.status).toBe(200);
  return { token: s.body.session_token as string, pub: pub.body };
}

const relayerNonce = () => f.chain.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' });
const relayRows = async () => Number((await sql<{ n: string }>`select count(*)::text as n from relays`.execute(f.h.db)).rows[0]!.n);
const relayerIntents = async () => Number((await sql<{ n: string }>`select count(*)::text as n from operator_txs where key_role = 'relayer'`.execute(f.h.db)).rows[0]!.n);

async function settle() {
  await driveOperator(f.h, f.chain);
  await f.chain.mine(2);
  await f.h.services.indexer.runOnce(84532);
}

describe('gasless checkout (ERC-3009 relayed)', () => {
  it('a buyer with zero ETH pays a hosted session: confirmed, webhook event, exact split, relayer pays the gas', async () => {
    const { h, chain } = f;
    const { p, m, platformWallet, merchantWallet } = await setupPlatform(h, 500, 1000);
    const ep = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: 'http://127.0.0.1:9/hook', subscribed_events: ['order.confirmed'] } });
    expect(ep.status).toBe(201);
    const buyer = await zeroEthBuyer();
    const { token, pub } = await session(p.secretKey, m.external_id, 'gasless-1');
    expect(pub.gasless).toMatchObject({ enabled: true, reason: null, relay: null });
    const td = pub.gasless.typed_data;
    // The domain is the token's own (read from it), the authorization binds this order.
    expect(td.domain).toEqual({ name: 'USDC', version: '2', chainId: 84532, verifyingContract: getAddress(chain.usdc) });
    expect(td.message).toMatchObject({ from: null, to: getAddress(chain.router), value: '12345678', validAfter: '0', validBefore: String(Number(pub.order.eip712.message.deadline) + 1) });

    const who = [chain.treasury, platformWallet, merchantWallet, chain.router, buyer.address] as Address[];
    const before = await Promise.all(who.map((a) => balanceOf(chain, a)));
    const relayerEthBefore = await chain.publicClient.getBalance({ address: relayer });
    const posted = await h.request('POST', `/v1/checkout/sessions/${token}/relay`, { body: await authorize(buyer, td) });
    expect(posted.status, posted.text).toBe(202);
    expect(posted.body).toMatchObject({ object: 'relay', state: 'pending', from: buyer.address, tx_hash: null, error: null });
    await settle();

    const after = await Promise.all(who.map((a) => balanceOf(chain, a)));
    const s = pub.order.computed_split;
    expect(after.map((a, i) => a - before[i]!)).toEqual([BigInt(s.service_fee), BigInt(s.platform_fee), BigInt(s.merchant_available), BigInt(s.reserve_hold), -12_345_678n]);
    expect(await chain.publicClient.getBalance({ address: buyer.address })).toBe(0n);

    const read = (await h.request('GET', `/v1/checkout/sessions/${token}`)).body;
    expect(read.state).toBe('completed');
    expect(read.order.state).toBe('confirmed');
    expect(read.gasless).toMatchObject({ enabled: false, reason: 'order_not_payable', relay: { id: posted.body.id, state: 'succeeded' } });
    const order = (await h.request('GET', `/v1/orders/${pub.order.id}`, { key: p.secretKey })).body;
    expect(order).toMatchObject({ state: 'confirmed', paid_by: buyer.address });
    const relay = (await h.request('GET', `/v1/orders/${pub.order.id}/relay`, { key: p.secretKey })).body;
    expect(relay).toMatchObject({ id: posted.body.id, state: 'succeeded', tx_hash: order.tx_hash });
    // The relayer paid exactly the recorded gas; the platform's usage carries it.
    const cost = BigInt(relay.gas_cost_wei);
    expect(cost).toBeGreaterThan(0n);
    expect(relayerEthBefore - (await chain.publicClient.getBalance({ address: relayer }))).toBe(cost);
    const usage = (await h.request('GET', '/v1/gasless/usage', { key: p.secretKey })).body;
    expect(usage.days).toEqual([{ day: expect.any(String), relays: 1, reverted: 0, refused: 0, gas_cost_wei: cost.toString() }]);
    // The order.confirmed event and its delivery row, written by the indexer as for any payment.
    const events = await h.db.selectFrom('events').select('id').where('platform_id', '=', p.platformId).where('type', '=', 'order.confirmed').execute();
    expect(events).toHaveLength(1);
    const deliveries = await h.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', events[0]!.id).execute();
    expect(deliveries).toHaveLength(1);
  });

  it('a charge-later session paid gaslessly is authorized (nonce = hashPayOrder with captureDeadline), completes, then captures', async () => {
    const { h, chain } = f;
    const { p, m, merchantWallet } = await setupPlatform(h, 500, 1000);
    const buyer = await zeroEthBuyer();
    const { token, pub } = await session(p.secretKey, m.external_id, 'gasless-later', { capture_method: 'manual' });
    const msg = pub.order.eip712.message;
    expect(BigInt(msg.captureDeadline)).toBe(BigInt(msg.deadline) + 604_800n);
    const { EIP712Domain: _d, ...types } = pub.order.eip712.types;
    expect(pub.gasless.typed_data.message.nonce).toBe(hashTypedData({ domain: pub.order.eip712.domain, types, primaryType: 'PayOrder', message: msg }));
    const posted = await h.request('POST', `/v1/checkout/sessions/${token}/relay`, { body: await authorize(buyer, pub.gasless.typed_data) });
    expect(posted.status, posted.text).toBe(202);
    await settle();
    expect(await balanceOf(chain, buyer.address)).toBe(1_000n * 10n ** 6n - 12_345_678n);
    expect(await balanceOf(chain, merchantWallet)).toBe(0n);
    const read = (await h.request('GET', `/v1/checkout/sessions/${token}`)).body;
    expect(read).toMatchObject({ state: 'completed', order: { state: 'authorized', capture_method: 'manual' } });
    expect((await h.request('POST', `/v1/orders/${pub.order.id}/capture`, { key: p.secretKey, body: {} })).status).toBe(202);
    await settle();
    const done = (await h.request('GET', `/v1/orders/${pub.order.id}`, { key: p.secretKey })).body;
    expect(done).toMatchObject({ state: 'confirmed', amount_captured: '12.345678', paid_by: buyer.address });
    expect(await balanceOf(chain, merchantWallet)).toBe(BigInt(done.computed_split.merchant_available));
  });

  it('a platform backend relays a direct order (secret key)', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h);
    const buyer = await zeroEthBuyer();
    const o = (await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: 'direct-1', chain_id: 84532, token: 'USDC', amount: '3.00' } })).body;
    // The backend builds the same typed data: token domain, to = router, nonce = hashPayOrder(order).
    const { token, pub } = await session(p.secretKey, m.external_id, 'direct-helper'); // borrow the domain shape only
    void token;
    const td: TypedData = {
      domain: pub.gasless.typed_data.domain,
      message: { to: o.pay_to, value: '3000000', validAfter: '0', validBefore: String(Number(o.eip712.message.deadline) + 1), nonce: await orderNonce(o.id) },
    };
    const posted = await h.request('POST', `/v1/orders/${o.id}/relay`, { key: p.secretKey, body: await authorize(buyer, td) });
    expect(posted.status, posted.text).toBe(202);
    await settle();
    const done = (await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body;
    expect(done).toMatchObject({ state: 'confirmed', paid_by: buyer.address, payment_method: 'gasless' });
    expect((await h.request('GET', `/v1/orders/${o.id}/relay`, { key: p.secretKey })).body).toMatchObject({ id: posted.body.id, state: 'succeeded' });
    expect(await balanceOf(chain, buyer.address)).toBe(997_000_000n);
  });

  it('refuses every bad relay with a 4xx naming the problem, and sends and writes nothing', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h);
    const buyer = await zeroEthBuyer();
    const other = await zeroEthBuyer();
    const a = await session(p.secretKey, m.external_id, 'refuse-a');
    const b = await session(p.secretKey, m.external_id, 'refuse-b');
    const locked = await session(p.secretKey, m.external_id, 'refuse-locked', { payer_address: other.address });
    const nonceBefore = await relayerNonce();
    const [rowsBefore, intentsBefore] = [await relayRows(), await relayerIntents()];
    const post = (tok: string, body: unknown) => h.request('POST', `/v1/checkout/sessions/${tok}/relay`, { body });
    const td = a.pub.gasless.typed_data;
    const good = await authorize(buyer, td);

    const cases: [string, Promise<{ status: number; body: any }>, number, string][] = [
      ['signed by someone else', post(a.token, { ...(await authorize(other, td)), from: buyer.address }), 422, 'invalid_signature'],
      ['another order\'s nonce', post(a.token, await authorize(buyer, b.pub.gasless.typed_data)), 422, 'invalid_authorization'],
      ['outlives the order', post(a.token, await authorize(buyer, td, { validBefore: String(BigInt(td.message.validBefore) + 1n) })), 422, 'validation_failed'],
      ['payer lock', post(locked.token, await authorize(buyer, locked.pub.gasless.typed_data)), 422, 'payer_mismatch'],
      ['amount signed differs', post(a.token, await authorize(buyer, td, { value: '1' })), 422, 'invalid_signature'],
    ];
    for (const [what, res, status, code] of cases) {
      const r = await res;
      expect([what, r.status, r.body.error?.code]).toEqual([what, status, code]);
    }
    // The window offered, exactly: a valid_before of "latest block + 2 s" would lapse between the 202 and mining,
    // at the relayer's cost; a valid_after in the future likewise.
    const head = (await chain.publicClient.getBlock()).timestamp;
    for (const [field, over] of [['valid_before', { validBefore: String(head + 2n) }], ['valid_after', { validAfter: '1' }], ['valid_after', { validAfter: String(head + 600n) }]] as const) {
      const r = await post(a.token, await authorize(buyer, td, over));
      expect([field, r.status, r.body.error?.code, r.body.error?.param]).toEqual([field, 422, 'validation_failed', field]);
    }

    // Switched off, then capped.
    h.config.gaslessEnabled = false;
    expect((await post(a.token, good)).body.error.code).toBe('gasless_disabled');
    h.config.gaslessEnabled = true;
    const cap = h.config.gaslessDailyCap;
    h.config.gaslessDailyCap = 0;
    const capped = await post(a.token, good);
    expect([capped.status, capped.body.error.code]).toEqual([429, 'gasless_cap_reached']);
    // (a new session: a session read already answered stays cached until the session changes; the cap is advisory there)
    expect((await session(p.secretKey, m.external_id, 'refuse-capped')).pub.gasless).toMatchObject({ enabled: false, reason: 'daily_cap_reached', typed_data: null });
    h.config.gaslessDailyCap = cap;

    // Circle's blacklist: the simulation from the relayer reverts in the token, named.
    const blacklister = chain.walletClientFor(chain.usdcBlacklister);
    await chain.confirm(await blacklister.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'blacklist', args: [buyer.address] }));
    const black = await post(a.token, good);
    expect([black.status, black.body.error.code]).toEqual([422, 'simulation_failed']);
    expect(black.body.error.message).toMatch(/blacklisted/);
    await chain.confirm(await blacklister.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'unBlacklist', args: [buyer.address] }));

    expect(await relayerNonce()).toBe(nonceBefore);
    expect([await relayRows(), await relayerIntents()]).toEqual([rowsBefore, intentsBefore]);

    // One relay in flight per order; once paid, the order is not payable.
    expect((await post(a.token, good)).status).toBe(202);
    const again = await post(a.token, good);
    expect([again.status, again.body.error.code]).toEqual([409, 'relay_in_flight']);
    await settle();
    const paid = await post(a.token, good);
    expect([paid.status, paid.body.error.code]).toEqual([409, 'order_not_payable']);
    expect(await relayRows()).toBe(rowsBefore + 1);
  });

  it('a Safe (ERC-1271 through its fallback handler, from npm artifacts) pays gaslessly; its owner holds no ETH either', async () => {
    const { h, chain } = f;
    const { p, m, merchantWallet } = await setupPlatform(h, 500, 1000);
    const stack = await deploySafeStack(chain);
    const owner = privateKeyToAccount(generatePrivateKey());
    const safe = await deploySafe(chain, stack, [owner.address], 1n);
    await chain.fundUsdc(safe, 50n * 10n ** 6n);
    const { token, pub } = await session(p.secretKey, m.external_id, 'safe-1', { payer_address: safe });
    const td = pub.gasless.typed_data;
    const message = { from: safe, to: td.message.to, value: BigInt(td.message.value), validAfter: 0n, validBefore: BigInt(td.message.validBefore), nonce: td.message.nonce };
    const digest = hashTypedData({ domain: td.domain, types: receiveWithAuthorizationTypes, primaryType: 'ReceiveWithAuthorization', message });
    const signature = await signSafeHash(owner, safe, chain.chainId, digest);
    const before = await balanceOf(chain, merchantWallet);
    const posted = await h.request('POST', `/v1/checkout/sessions/${token}/relay`, {
      body: { from: safe, valid_after: '0', valid_before: td.message.validBefore, nonce: td.message.nonce, signature },
    });
    expect(posted.status, posted.text).toBe(202);
    await settle();
    const read = (await h.request('GET', `/v1/checkout/sessions/${token}`)).body;
    expect(read.order.state).toBe('confirmed');
    expect(read.gasless.relay.state).toBe('succeeded');
    expect(await balanceOf(chain, safe)).toBe(50n * 10n ** 6n - 12_345_678n);
    expect((await balanceOf(chain, merchantWallet)) - before).toBe(BigInt(pub.order.computed_split.merchant_available));
    const order = (await h.request('GET', `/v1/orders/${pub.order.id}`, { key: p.secretKey })).body;
    expect(order.paid_by).toBe(getAddress(safe));
    expect(await chain.publicClient.getBalance({ address: owner.address })).toBe(0n);
  });

  it('a relay whose transaction the sender can no longer send fails with the reason, sends nothing, and its payer is refused on that order; Idempotency-Key replays', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h);
    const buyer = await zeroEthBuyer(20n * 10n ** 6n);
    const o = (await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: 'moved-1', chain_id: 84532, token: 'USDC', amount: '15.00' } })).body;
    const { pub } = await session(p.secretKey, m.external_id, 'moved-helper');
    const td: TypedData = {
      domain: pub.gasless.typed_data.domain,
      message: { to: o.pay_to, value: '15000000', validAfter: '0', validBefore: String(Number(o.eip712.message.deadline) + 1), nonce: await orderNonce(o.id) },
    };
    const body = await authorize(buyer, td);
    const first = await h.request('POST', `/v1/orders/${o.id}/relay`, { key: p.secretKey, body, headers: { 'idempotency-key': 'relay-moved-1' } });
    expect(first.status, first.text).toBe(202);
    const replay = await h.request('POST', `/v1/orders/${o.id}/relay`, { key: p.secretKey, body, headers: { 'idempotency-key': 'relay-moved-1' } });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.id]).toEqual([202, 'true', first.body.id]);
    // The buyer's funds are blacklisted before the relayer sends, and the intent is older than the sender trusts
    // submit's simulation for (a backlog): its own simulation refuses, nothing is sent.
    const nonceBefore = await relayerNonce();
    const blacklister = chain.walletClientFor(chain.usdcBlacklister);
    await chain.confirm(await blacklister.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'blacklist', args: [buyer.address] }));
    await sql`update operator_txs set created_at = now() - interval '1 hour' where key_role = 'relayer' and state = 'queued'`.execute(h.db);
    await driveOperator(h, chain);
    expect(await relayerNonce()).toBe(nonceBefore);
    const failed = (await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body;
    expect(failed.state).toBe('pending_payment');
    const failedRelay = (await h.request('GET', `/v1/orders/${o.id}/relay`, { key: p.secretKey })).body;
    expect(failedRelay).toMatchObject({ id: first.body.id, state: 'failed', tx_hash: null, error: { code: 'simulation_failed' } });
    expect(failedRelay.error.message).toMatch(/blacklisted/);
    // Blocklisted is the payer's doing: the order is not relayed for it again (it can pay another way), and the
    // platform's slot came back (counted as reverted instead).
    await chain.confirm(await blacklister.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'unBlacklist', args: [buyer.address] }));
    const second = await h.request('POST', `/v1/orders/${o.id}/relay`, { key: p.secretKey, body });
    expect([second.status, second.body.error?.code, second.body.error?.param]).toEqual([422, 'gasless_refused', 'from']);
    expect(await relayerNonce()).toBe(nonceBefore);
    expect((await h.request('GET', '/v1/gasless/usage', { key: p.secretKey })).body.days[0]).toMatchObject({ relays: 0, reverted: 1, refused: 1, gas_cost_wei: '0' });
  });

  it('the sender simulates again against the pending block just before broadcast: funds moved after the 202 cost the relayer nothing', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h);
    const buyer = await zeroEthBuyer(20n * 10n ** 6n);
    const { token, pub } = await session(p.secretKey, m.external_id, 'fresh-revert-1');
    const posted = await h.request('POST', `/v1/checkout/sessions/${token}/relay`, { body: await authorize(buyer, pub.gasless.typed_data) });
    expect(posted.status, posted.text).toBe(202);
    const [intent] = await h.services.operatorTxs.forRef('relay', posted.body.id);
    expect(intent!.gas_limit).toBeGreaterThan(21_000n); // submit's limit, the most the sender may sign with
    // Right after the 202 the buyer sends its whole balance elsewhere with a high tip: in the node's pool, not mined.
    await chain.anvil.setBalance({ address: buyer.address, value: 10n ** 18n });
    const usdc = chain.walletClientFor(buyer);
    await usdc.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'transfer', args: [chain.treasury, 20n * 10n ** 6n], gas: 100_000n, maxFeePerGas: 200n * 10n ** 9n, maxPriorityFeePerGas: 100n * 10n ** 9n });
    const [nonceBefore, ethBefore] = [await relayerNonce(), await chain.publicClient.getBalance({ address: relayer })];
    await settle();
    expect(await relayerNonce()).toBe(nonceBefore); // nothing signed, nothing sent
    expect(await chain.publicClient.getBalance({ address: relayer })).toBe(ethBefore);
    const relay = (await h.request('GET', `/v1/checkout/sessions/${token}`)).body.gasless.relay;
    expect(relay).toMatchObject({ id: posted.body.id, state: 'failed', tx_hash: null, gas_cost_wei: null, error: { code: 'simulation_failed' } });
    expect(relay.error.message).toMatch(/exceeds balance/);
    expect((await h.request('GET', '/v1/gasless/usage', { key: p.secretKey })).body.days[0]).toMatchObject({ relays: 0, reverted: 1, gas_cost_wei: '0' });
    expect((await h.request('GET', `/v1/orders/${pub.order.id}`, { key: p.secretKey })).body.state).toBe('pending_payment');
  });

  it('refuses an order past its deadline on the chain clock (last: moves the chain an hour ahead)', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h);
    const buyer = await zeroEthBuyer();
    const s = await session(p.secretKey, m.external_id, 'late-1', { expires_in_seconds: 60 });
    expect(s.pub.gasless.reason).toBeNull();
    const body = await authorize(buyer, s.pub.gasless.typed_data);
    await chain.increaseTime(3600);
    const nonceBefore = await relayerNonce();
    const r = await h.request('POST', `/v1/checkout/sessions/${s.token}/relay`, { body });
    expect([r.status, r.body.error.code]).toEqual([409, 'order_not_payable']);
    expect(await relayerNonce()).toBe(nonceBefore);
  });
});

/** hashPayOrder(order) as a platform backend computes it (viem hashTypedData of the order's eip712). */
async function orderNonce(orderId: string): Promise<string> {
  const { payOrderNonce } = await import('../../src/modules/relay/typed-data.js');
  const row = await f.h.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
  return payOrderNonce(row);
}
