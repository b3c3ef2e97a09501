/**
 * x402 front-running (issue 28): the buyer's authorization names only the router and the amount, so a third party
 * holding the PAYMENT-SIGNATURE can submit it to USDC's transferWithAuthorization before the service relays it. The
 * funds then land in the router unattributed; the indexer (at depth 2) matches the token's AuthorizationUsed to the
 * verified x402 payment and the operator completes it: attributeTransfer while the order is payable, returnTransfer
 * when another payment paid it. Anvil, the real router, Circle's FiatTokenV2_2, the stock @x402 client.
 */
import { sql } from 'kysely';
import { erc20Abi, parseAbi, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { balanceOf, createFlow, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';

const CHAIN = 84532;
const usdc3009 = parseAbi(['function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)']);

let f: Flow;
let relayer: Address;
let thirdParty: LocalAccount;
const relayerKey = generatePrivateKey();
beforeAll(async () => {
  // The paid request answers settlement_pending quickly: the test holds the relayer's sender (runOnce is the test's).
  f = await createFlow({ confirmations: 2, config: { relayerPrivateKey: relayerKey, gaslessEnabled: true, gaslessDailyCap: 100, x402SettleWaitMs: 300 } });
  relayer = privateKeyToAccount(relayerKey).address;
  thirdParty = privateKeyToAccount(generatePrivateKey());
  for (const a of [relayer, thirdParty.address]) await f.chain.anvil.setBalance({ address: a, value: 10n ** 20n });
}, 120_000);
afterAll(async () => f.close());

const appFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => f.h.app.fetch(new Request(input, init));

async function buyer() {
  const b = privateKeyToAccount(generatePrivateKey());
  await f.chain.fundUsdc(b.address, 1_000n * 10n ** 6n);
  return b;
}

/** The stock client pays the session; the relay is accepted (queued, not sent: nobody runs the sender). Returns the header. */
function stockClient(b: LocalAccount) {
  const client = new x402Client();
  client.register('eip155:*', new ExactEvmScheme(b));
  client.setSpendControls({ allowedAssets: [{ network: `eip155:${CHAIN}`, asset: f.chain.usdc, maxAmountPerPayment: '100000000' }] });
  return client;
}

async function presentPayment(url: string, b: LocalAccount): Promise<string> {
  const client = stockClient(b);
  let header: string | null = null;
  const recording = (input: RequestInfo | URL, init?: RequestInit) => {
    const r = new Request(input, init);
    header ??= r.headers.get('PAYMENT-SIGNATURE');
    return appFetch(r);
  };
  const res = await wrapFetchWithPayment(recording, client)(url);
  expect(res.status).toBe(402); // settlement_pending: accepted, not mined
  expect(JSON.parse(Buffer.from(res.headers.get('PAYMENT-RESPONSE')!, 'base64').toString('utf8'))).toMatchObject({ errorReason: 'settlement_pending' });
  return header!;
}

/** A third party submits the buyer's authorization straight to USDC (no router call). */
async function frontRun(header: string) {
  await frontRunPayload(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
}
async function frontRunPayload({ payload }: { payload: { authorization: Record<string, string>; signature: Hex } }) {
  const a = payload.authorization;
  const hash = await f.chain.walletClientFor(thirdParty).writeContract({
    address: f.chain.usdc, abi: usdc3009, functionName: 'transferWithAuthorization',
    args: [a.from as Address, a.to as Address, BigInt(a.value!), BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce as Hex, payload.signature],
  });
  await f.chain.confirm(hash);
}

const statusOf = async (orderId: string, payer: Address) =>
  (await sql<{ status: string }>`select status from x402_payments where order_id = ${orderId} and payer = ${payer}`.execute(f.h.db)).rows[0]?.status;

/** Sender, a block, the indexer: until `done` (each round is one block; the depth is 2). */
async function driveUntil(done: () => Promise<boolean>) {
  for (let i = 0; i < 30 && !(await done()); i++) {
    await f.h.services.operatorTxs.runOnce(CHAIN);
    await f.chain.mine(1);
    await f.h.services.indexer.runOnce(CHAIN);
  }
  expect(await done()).toBe(true);
}

/** The router holds what it reserved and holds, plus `unattributed` (USDC sent to it that no order pulled). */
async function routerBacked(unattributed = 0n) {
  const read = (functionName: 'reserved' | 'held') => f.chain.publicClient.readContract({ address: f.chain.router, abi: paymentRouterAbi, functionName, args: [f.chain.usdc] });
  expect(await balanceOf(f.chain, f.chain.router)).toBe((await read('reserved')) + (await read('held')) + unattributed);
}

async function session(key: string, merchantId: string) {
  const s = await f.h.request('POST', '/v1/checkout/sessions', { key, body: { merchant_id: merchantId, order_no: `fr-${Date.now()}-${Math.random()}`, chain_id: CHAIN, token: 'USDC', amount: '12.345678' } });
  expect(s.status, s.text).toBe(201);
  return s.body as { id: string; order_id: string; session_token: string; x402_url: string };
}

/** The payer's unmatched transfers: resolution and the operator call's hash. */
const unmatchedOf = async (payer: Address) =>
  (await sql<{ resolution: string | null; resolution_tx_hash: string | null; resolved: boolean; receipt_due: boolean }>`select resolution, resolution_tx_hash,
    resolved_at is not null as resolved, receipt_due from unmatched_transfers where from_address = ${payer}`.execute(f.h.db)).rows;
/** Every page of GET /_/unmatched-transfers. */
async function listedUnmatched() {
  const all: { from: string; tx_hash: string }[] = [];
  for (let cursor: string | null = null, first = true; first || cursor; first = false) {
    const page: { status: number; text: string; body: { data: { from: string; tx_hash: string }[]; next_cursor: string | null } } = await f.h.request('GET', `/_/unmatched-transfers?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key: ADMIN_TOKEN });
    expect(page.status, page.text).toBe(200);
    all.push(...page.body.data);
    cursor = page.body.next_cursor;
  }
  return all;
}
const paymentTx = async (orderId: string, payer: Address) =>
  (await sql<{ tx_hash: string }>`select tx_hash from x402_payments where order_id = ${orderId} and payer = ${payer}`.execute(f.h.db)).rows[0]!.tx_hash;

/** The transaction of the payer's transfer of exactly the payment's value (the front-run one). */
const frontRunHash = async (payer: Address) =>
  (await sql<{ tx_hash: string }>`select tx_hash from unmatched_transfers where from_address = ${payer} and value = 12345678`.execute(f.h.db)).rows[0]!.tx_hash;

const eventsOf = async (orderId: string) =>
  (await f.h.db.selectFrom('events').select(['type', 'data']).execute()).filter((e) => JSON.stringify(e.data).includes(orderId)).map((e) => e.type).sort();

describe('x402 front-running', () => {
  it('an authorization submitted straight to USDC before the relay: attributed, the order confirms with the exact split, no ban', async () => {
    const { h, chain } = f;
    const { p, m, platformWallet, merchantWallet } = await setupPlatform(h, 500, 1000);
    const s = await session(p.secretKey, m.external_id);
    const b = await buyer();
    const who = [chain.treasury, platformWallet, merchantWallet, chain.router, b.address] as Address[];
    const before = await Promise.all(who.map((a) => balanceOf(chain, a)));
    const header = await presentPayment(s.x402_url, b);
    expect(await chain.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' })).toBe(0);
    await frontRun(header);

    await driveUntil(async () => (await statusOf(s.order_id, b.address)) === 'attributed'
      && (await h.request('GET', `/v1/orders/${s.order_id}`, { key: p.secretKey })).body.state === 'confirmed');
    const order = (await h.request('GET', `/v1/orders/${s.order_id}`, { key: p.secretKey })).body;
    expect(order).toMatchObject({ state: 'confirmed', paid_by: b.address, payment_method: 'x402' }); // attributeTransfer, not a relay
    const split = order.computed_split;
    const after = await Promise.all(who.map((a) => balanceOf(chain, a)));
    expect(after.map((a, i) => a - before[i]!)).toEqual([BigInt(split.service_fee), BigInt(split.platform_fee), BigInt(split.merchant_available), BigInt(split.reserve_hold), -12_345_678n]);
    await routerBacked();
    expect(await eventsOf(s.order_id)).toEqual(['checkout.session.completed', 'order.confirmed']);
    expect((await h.request('GET', `/v1/checkout/sessions/${s.session_token}`)).body.state).toBe('completed');
    // The relay failed on the used nonce (the sender's simulation refused it): not the payer's doing.
    const relay = (await sql<{ state: string }>`select state from relays where order_id = ${s.order_id}`.execute(h.db)).rows;
    expect(relay).toEqual([{ state: 'failed' }]);
    expect((await sql`select 1 from relay_payers where payer = ${b.address} and banned_until is not null`.execute(h.db)).rows).toEqual([]);
    expect((await sql`select 1 from relay_order_bans where payer = ${b.address}`.execute(h.db)).rows).toEqual([]);
    const alerts = (await sql<{ kind: string }>`select kind from chain_alerts where detail::text like ${`%${b.address}%`}`.execute(h.db)).rows.map((r) => r.kind);
    expect(alerts).not.toContain('unmatched_transfer');
    // The transfer is resolved with the attribution's hash, in the outcome's transaction, and no longer listed.
    expect(await unmatchedOf(b.address)).toEqual([{ resolution: 'attributed', resolution_tx_hash: await paymentTx(s.order_id, b.address), resolved: true, receipt_due: false }]);
    expect((await listedUnmatched()).filter((t) => t.from === b.address)).toEqual([]);
  }, 60_000);

  it('a second payer front-run after the order was paid by another: its value goes back automatically', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h, 500, 1000);
    const s = await session(p.secretKey, m.external_id);
    const second = await buyer();
    const header = await presentPayment(s.x402_url, second); // verified and queued while the order was open
    const order = (await h.request('GET', `/v1/orders/${s.order_id}`, { key: p.secretKey })).body;
    const first = chain.buyers[0]!;
    await payAsBuyer(chain, first, order); // the order is paid by another payment (the hosted page's payOrder)
    const before = await balanceOf(chain, second.address);
    await frontRun(header);
    expect(await balanceOf(chain, second.address)).toBe(before - 12_345_678n);

    await driveUntil(async () => (await statusOf(s.order_id, second.address)) === 'returned');
    expect(await balanceOf(chain, second.address)).toBe(before);
    expect((await h.request('GET', `/v1/orders/${s.order_id}`, { key: p.secretKey })).body).toMatchObject({ state: 'confirmed', paid_by: first.address });
    await routerBacked();
    const alerts = (await sql<{ kind: string; detail: string }>`select kind, detail::text as detail from chain_alerts where detail::text like ${`%${second.address}%`}`.execute(h.db)).rows;
    expect(alerts.map((a) => a.kind)).toEqual(['x402_returned']);
    expect(JSON.parse(alerts[0]!.detail)).toMatchObject({ order_id: s.order_id, value: '12345678' });
    expect(await unmatchedOf(second.address)).toEqual([{ resolution: 'returned', resolution_tx_hash: JSON.parse(alerts[0]!.detail).tx_hash, resolved: true, receipt_due: false }]);
    expect((await listedUnmatched()).filter((t) => t.from === second.address)).toEqual([]);
  }, 60_000);

  it('facilitator: verify, then the authorization is front-run and indexed, then settle: the payment is adopted and attributed', async () => {
    const { h, chain } = f;
    const { p, m, merchantWallet } = await setupPlatform(h, 500, 0);
    const r = await h.request('POST', '/v1/x402/requirements', { key: p.secretKey, body: { merchant_id: m.external_id, amount: '0.75', description: 'GET /weather', resource: 'https://api.example/weather' } });
    expect(r.status, r.text).toBe(201);
    const b = await buyer();
    const payload = await stockClient(b).createPaymentPayload(r.body.payment_required);
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: r.body.payment_required.accepts[0] };
    expect((await h.request('POST', '/v1/x402/verify', { key: p.secretKey, body })).body).toEqual({ isValid: true, payer: b.address });
    await frontRunPayload(payload as never);
    for (let i = 0; i < 3; i++) {
      await chain.mine(1);
      await h.services.indexer.runOnce(CHAIN); // the transfer is indexed (unmatched) before anyone knows whose it is
    }
    expect((await sql`select 1 from unmatched_transfers where from_address = ${b.address}`.execute(h.db)).rows).toHaveLength(1);
    const settled = await h.request('POST', '/v1/x402/settle', { key: p.secretKey, body });
    expect(settled.body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used' });
    expect(await chain.publicClient.getTransactionCount({ address: relayer })).toBe(0); // nothing relayed
    await driveUntil(async () => (await statusOf(r.body.order_id, b.address)) === 'attributed'
      && (await h.request('GET', `/v1/orders/${r.body.order_id}`, { key: p.secretKey })).body.state === 'confirmed');
    const order = (await h.request('GET', `/v1/orders/${r.body.order_id}`, { key: p.secretKey })).body;
    expect(await balanceOf(chain, merchantWallet)).toBe(BigInt(order.computed_split.merchant_available));
    await routerBacked();
    // Settle again with the same payload: answered from the attributed payment at once (success, the attribution's hash).
    expect(await unmatchedOf(b.address)).toEqual([{ resolution: 'attributed', resolution_tx_hash: await paymentTx(r.body.order_id, b.address), resolved: true, receipt_due: false }]);
    const again = await h.request('POST', '/v1/x402/settle', { key: p.secretKey, body });
    expect(again.body).toMatchObject({ success: true, payer: b.address, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
  }, 60_000);

  it('dust attack: 200 transfers to the router from random addresses cost no receipt read; a front-run among them is still attributed', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h, 500, 0);
    const s = await session(p.secretKey, m.external_id);
    const b = await buyer();
    const header = await presentPayment(s.x402_url, b);
    // 200 senders, 1 to 12_345_678 base units (a few of exactly the payment's amount), all in the same blocks.
    const senders = Array.from({ length: 200 }, () => privateKeyToAccount(generatePrivateKey()));
    const values = senders.map((_, i) => (i % 50 === 0 ? 12_345_678n : BigInt(1 + i)));
    const owner = chain.walletClientFor(chain.owner);
    for (const [i, a] of senders.entries()) {
      await chain.anvil.setBalance({ address: a.address, value: 10n ** 18n });
      await owner.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'mint', args: [a.address, values[i]!] });
    }
    await chain.mine(1);
    const dust = await Promise.all(senders.map((a, i) =>
      chain.walletClientFor(a).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [chain.router, values[i]!], gas: 100_000n })));
    // The payer itself sends a different amount: its sender matches, its value does not.
    await chain.anvil.setBalance({ address: b.address, value: 10n ** 18n });
    dust.push(await chain.walletClientFor(b).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [chain.router, 7n], gas: 100_000n }));
    await chain.mine(1);
    for (const hash of dust) expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe('success');
    await frontRun(header);

    const receipts = vi.spyOn(h.services.chains.get(CHAIN).publicClient, 'getTransactionReceipt');
    try {
      for (let i = 0; i < 4; i++) {
        await chain.mine(1);
        await h.services.indexer.runOnce(CHAIN); // the indexer alone (the sender is not run)
      }
      expect((await sql<{ n: number }>`select count(*)::int as n from unmatched_transfers where tx_hash = any(${dust})`.execute(h.db)).rows[0]!.n).toBe(201);
      // One receipt read: the front-run transaction's. The 201 others matched no open verified payment.
      expect(receipts.mock.calls.map(([a]) => a.hash)).toEqual([await frontRunHash(b.address)]);
      expect(await statusOf(s.order_id, b.address)).toBe('front_run');
    } finally {
      receipts.mockRestore();
    }
    const alerts = (await sql<{ n: number }>`select count(*)::int as n from chain_alerts where kind = 'unmatched_transfer' and detail->>'tx_hash' = any(${dust})`.execute(h.db)).rows[0]!.n;
    expect(alerts).toBe(201);
    await driveUntil(async () => (await statusOf(s.order_id, b.address)) === 'attributed'
      && (await h.request('GET', `/v1/orders/${s.order_id}`, { key: p.secretKey })).body.state === 'confirmed');
    await routerBacked(values.reduce((a, v) => a + v, 7n)); // the dust stays unattributed, the front-run value does not
    // The dust is still listed for the operator (unresolved); the front-run transfer is not.
    const listed = new Set((await listedUnmatched()).map((t) => t.tx_hash));
    expect(listed.has(await frontRunHash(b.address))).toBe(false);
    expect(dust.every((hash) => listed.has(hash))).toBe(true);
  }, 120_000);
});
