/**
 * x402 (issue 28): a checkout session paid by the STOCK x402 client from npm (@x402/fetch + @x402/evm's exact
 * scheme, unmodified) against the service in process, on anvil with the real router and Circle's FiatTokenV2_2.
 * The relayer's sender is driven by the test while the paid request waits for its transaction to be mined.
 */
import { sql } from 'kysely';
import { getAddress, type Address, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { balanceOf, createFlow, setupPlatform, type Flow } from '../helpers/flow.js';

let f: Flow;
let relayer: Address;
const relayerKey = generatePrivateKey();
beforeAll(async () => {
  f = await createFlow({ confirmations: 2, config: { relayerPrivateKey: relayerKey, gaslessEnabled: true, gaslessDailyCap: 100, x402SettleWaitMs: 20_000 } });
  relayer = privateKeyToAccount(relayerKey).address;
  await f.chain.anvil.setBalance({ address: relayer, value: 10n ** 20n });
}, 120_000);
afterAll(async () => f.close());

/** The client configuration docs/x402.md gives for a token off @x402/core's built-in list (the test chain's USDC). */
function stockClient(buyer: LocalAccount) {
  const client = new x402Client();
  client.register('eip155:*', new ExactEvmScheme(buyer));
  client.setSpendControls({ allowedAssets: [{ network: 'eip155:84532', asset: f.chain.usdc, maxAmountPerPayment: '100000000' }] });
  return client;
}
/** fetch into the app in process, as a network fetch would reach it. */
const appFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => f.h.app.fetch(new Request(input, init));

/** Runs `work` while the relayer's sender runs and blocks are mined (the paid request waits until mined). */
async function whileRelaying<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const driven = (async () => {
    while (!done) {
      await f.h.services.operatorTxs.runOnce(84532);
      await f.chain.mine(1);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    return await work;
  } finally {
    done = true;
    await driven;
  }
}

async function confirmAll() {
  for (let i = 0; i < 4; i++) {
    await f.h.services.operatorTxs.runOnce(84532);
    await f.chain.mine(1);
  }
  await f.h.services.indexer.runOnce(84532);
}

async function zeroEthBuyer() {
  const buyer = privateKeyToAccount(generatePrivateKey());
  await f.chain.fundUsdc(buyer.address, 1_000n * 10n ** 6n);
  return buyer;
}

let seq = 0;
async function session(key: string, merchantId: string, extra: Record<string, unknown> = {}) {
  const s = await f.h.request('POST', '/v1/checkout/sessions', { key, body: { merchant_id: merchantId, order_no: `x402-${++seq}`, chain_id: 84532, token: 'USDC', amount: '12.345678', ...extra } });
  expect(s.status, s.text).toBe(201);
  return s.body as { id: string; order_id: string; session_token: string; x402_url: string };
}

const relayerNonce = () => f.chain.publicClient.getTransactionCount({ address: relayer, blockTag: 'pending' });
const eventsOf = async (orderId: string) =>
  (await f.h.db.selectFrom('events').select(['type', 'data']).execute()).filter((e) => JSON.stringify(e.data).includes(orderId)).map((e) => e.type).sort();
const decode = (h: string | null) => JSON.parse(Buffer.from(h!, 'base64').toString('utf8'));

describe('x402: a session paid by the stock client', () => {
  let paidHeader: string;
  let paidUrl: string;

  it('answers 402 with the v2 PaymentRequired, pays through x402_url, splits exactly, confirms at depth and sends the webhooks', async () => {
    const { h, chain } = f;
    const { p, m, platformWallet, merchantWallet } = await setupPlatform(h, 500, 1000);
    const s = await session(p.secretKey, m.external_id);
    expect(s.x402_url).toBe(`${h.config.publicBaseUrl}/x402/${s.session_token}`);
    const offer = await appFetch(s.x402_url);
    expect(offer.status).toBe(402);
    const required = decode(offer.headers.get('PAYMENT-REQUIRED'));
    expect(await offer.json()).toEqual(required);
    expect(required).toMatchObject({
      x402Version: 2, resource: { url: s.x402_url, description: expect.stringContaining('Chain Goods'), mimeType: 'application/json' },
      accepts: [{ scheme: 'exact', network: 'eip155:84532', amount: '12345678', asset: getAddress(chain.usdc), payTo: getAddress(chain.router),
        maxTimeoutSeconds: 300, extra: { name: 'USDC', version: '2', trisettle_session: s.id, trisettle_order: s.order_id } }],
    });

    const buyer = await zeroEthBuyer();
    const who = [chain.treasury, platformWallet, merchantWallet, chain.router, buyer.address] as Address[];
    const before = await Promise.all(who.map((a) => balanceOf(chain, a)));
    const sent: Request[] = [];
    const recording = (input: RequestInfo | URL, init?: RequestInit) => {
      const r = new Request(input, init);
      sent.push(r.clone());
      return appFetch(r);
    };
    const res = await whileRelaying(wrapFetchWithPayment(recording, stockClient(buyer))(s.x402_url));
    expect(res.status, await res.clone().text()).toBe(200);
    const settled = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!);
    expect(settled).toMatchObject({ success: true, network: 'eip155:84532', payer: buyer.address, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const receipt = await res.json();
    const order = (await h.request('GET', `/v1/orders/${s.order_id}`, { key: p.secretKey })).body;
    expect(receipt).toEqual({ object: 'x402_receipt', order_id: s.order_id, state: 'pending_payment', amount: '12.345678', token_address: order.token_address, computed_split: order.computed_split, tx_hash: settled.transaction, confirmations_required: 2 });
    paidHeader = sent[1]!.headers.get('PAYMENT-SIGNATURE')!;
    paidUrl = s.x402_url;

    await confirmAll();
    const after = await Promise.all(who.map((a) => balanceOf(chain, a)));
    const split = order.computed_split;
    expect(after.map((a, i) => a - before[i]!)).toEqual([BigInt(split.service_fee), BigInt(split.platform_fee), BigInt(split.merchant_available), BigInt(split.reserve_hold), -12_345_678n]);
    expect(await chain.publicClient.getBalance({ address: buyer.address })).toBe(0n);
    const done = (await h.request('GET', `/v1/orders/${s.order_id}`, { key: p.secretKey })).body;
    expect(done).toMatchObject({ state: 'confirmed', paid_by: buyer.address, tx_hash: settled.transaction, payment_method: 'x402' });
    expect((await h.request('GET', `/v1/checkout/sessions/${s.session_token}`)).body.state).toBe('completed');
    expect(await eventsOf(s.order_id)).toEqual(['checkout.session.completed', 'order.confirmed']);
    const row = (await sql<{ status: string; payer: string }>`select status, payer from x402_payments where order_id = ${s.order_id}`.execute(h.db)).rows;
    expect(row).toEqual([{ status: 'settled', payer: buyer.address }]);
    // A paid session is not a 402 any more: the stock client hands the 409 back and pays nothing.
    expect((await appFetch(s.x402_url)).status).toBe(409);
  });

  it('refuses a replay of the same PAYMENT-SIGNATURE without spending gas', async () => {
    const nonce = await relayerNonce();
    // The session is paid: 409 before anything else. The same header on a fresh session for the same amount is the nonce's refusal.
    expect((await appFetch(paidUrl, { headers: { 'PAYMENT-SIGNATURE': paidHeader } })).status).toBe(409);
    const { p, m } = await setupPlatform(f.h, 500, 1000);
    const s = await session(p.secretKey, m.external_id);
    const res = await appFetch(s.x402_url, { headers: { 'PAYMENT-SIGNATURE': paidHeader } });
    expect(res.status).toBe(402);
    expect(decode(res.headers.get('PAYMENT-REQUIRED')).error).toBe('invalid_exact_evm_nonce_already_used');
    expect(await relayerNonce()).toBe(nonce);
  });

  it('a payer-locked session refuses another payer (402 with the reason; nothing sent)', async () => {
    const { p, m } = await setupPlatform(f.h);
    const owner = await zeroEthBuyer();
    const s = await session(p.secretKey, m.external_id, { payer_address: owner.address });
    const nonce = await relayerNonce();
    const res = await wrapFetchWithPayment(appFetch, stockClient(await zeroEthBuyer()))(s.x402_url);
    expect(res.status).toBe(402);
    const parsed = new x402HTTPClient(stockClient(owner)).parsePaymentResult({ status: res.status, getHeader: (n) => res.headers.get(n), body: await res.json() });
    expect(parsed).toMatchObject({ paymentStatus: 'payment_required', header: { error: 'trisettle_payer_mismatch' } });
    expect(await relayerNonce()).toBe(nonce);
    expect((await sql<{ n: string }>`select count(*)::text as n from x402_payments where order_id = ${s.order_id}`.execute(f.h.db)).rows[0]!.n).toBe('0');
  });

  it('refuses an amount or a recipient that differs from the order', async () => {
    const { p, m } = await setupPlatform(f.h);
    const s = await session(p.secretKey, m.external_id);
    const required = decode((await appFetch(s.x402_url)).headers.get('PAYMENT-REQUIRED'));
    const buyer = await zeroEthBuyer();
    const client = stockClient(buyer);
    const pay = async (over: Record<string, unknown>) => {
      const payload = await client.createPaymentPayload({ ...required, accepts: [{ ...required.accepts[0], ...over }] });
      const header = new x402HTTPClient(client).encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!;
      const res = await appFetch(s.x402_url, { headers: { 'PAYMENT-SIGNATURE': header } });
      return { status: res.status, error: decode(res.headers.get('PAYMENT-REQUIRED'))?.error };
    };
    const nonce = await relayerNonce();
    expect(await pay({ amount: '12345677' })).toEqual({ status: 402, error: 'invalid_exact_evm_payload_authorization_value_mismatch' });
    expect(await pay({ payTo: buyer.address })).toEqual({ status: 402, error: 'invalid_exact_evm_recipient_mismatch' });
    expect(await relayerNonce()).toBe(nonce);
  });

  it('two payers racing for one order: the second is refused before anything is sent', async () => {
    const { p, m } = await setupPlatform(f.h);
    const s = await session(p.secretKey, m.external_id);
    const [a, b] = [await zeroEthBuyer(), await zeroEthBuyer()];
    const first = whileRelaying(wrapFetchWithPayment(appFetch, stockClient(a))(s.x402_url));
    // Wait until the first is accepted (its x402 payment pending), then the second presents its authorization.
    for (let i = 0; i < 200; i++) {
      const n = (await sql<{ n: string }>`select count(*)::text as n from x402_payments where order_id = ${s.order_id}`.execute(f.h.db)).rows[0]!.n;
      if (n === '1') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const second = await wrapFetchWithPayment(appFetch, stockClient(b))(s.x402_url);
    expect([402, 409]).toContain(second.status);
    if (second.status === 402) expect(decode(second.headers.get('PAYMENT-REQUIRED')).error).toMatch(/trisettle_order_already_paying|trisettle_payment_in_flight/);
    expect((await first).status).toBe(200);
    await confirmAll();
    expect(await balanceOf(f.chain, b.address)).toBe(1_000n * 10n ** 6n);
    expect(await balanceOf(f.chain, a.address)).toBe(1_000n * 10n ** 6n - 12_345_678n);
  });

  it('facilitator endpoints: requirements → stock client payload → verify → settle (once: a repeat under its Idempotency-Key replays the success, another presentation is success: false); another platform\'s session is 404', async () => {
    const { p, m, merchantWallet } = await setupPlatform(f.h, 500, 0);
    const r = await f.h.request('POST', '/v1/x402/requirements', { key: p.secretKey, body: { merchant_id: m.external_id, amount: '0.75', description: 'GET /weather', resource: 'https://api.example/weather' } });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ object: 'x402_requirements', payment_required: { x402Version: 2, resource: { url: 'https://api.example/weather' }, accepts: [{ amount: '750000' }] } });
    const buyer = await zeroEthBuyer();
    const payload = await stockClient(buyer).createPaymentPayload(r.body.payment_required);
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: r.body.payment_required.accepts[0] };
    const v = await f.h.request('POST', '/v1/x402/verify', { key: p.secretKey, body });
    expect(v.status, v.text).toBe(200);
    expect(v.body).toEqual({ isValid: true, payer: buyer.address });
    const other = await setupPlatform(f.h);
    expect((await f.h.request('POST', '/v1/x402/verify', { key: other.p.secretKey, body })).status).toBe(404);
    const idem = { 'Idempotency-Key': `settle-${buyer.address}` };
    const settled = await whileRelaying(f.h.request('POST', '/v1/x402/settle', { key: p.secretKey, body, headers: idem }));
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body).toMatchObject({ success: true, payer: buyer.address, network: 'eip155:84532', order: { order_id: r.body.order_id, amount: '0.75' } });
    const nonce = await relayerNonce();
    // The same request again (a platform whose answer was lost): its Idempotency-Key replays the one success.
    const replayed = await f.h.request('POST', '/v1/x402/settle', { key: p.secretKey, body, headers: idem });
    expect(replayed.body).toMatchObject({ success: true, transaction: settled.body.transaction });
    // The payment presented again under another key: answered once already, so success: false, naming its transaction.
    const again = await f.h.request('POST', '/v1/x402/settle', { key: p.secretKey, body });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: settled.body.transaction });
    expect(await relayerNonce()).toBe(nonce);
    await confirmAll();
    expect(await balanceOf(f.chain, merchantWallet)).toBe(BigInt(settled.body.order.computed_split.merchant_available));
  });

  it('a spent relayer budget refuses the payment before anything is sent (402 trisettle_relayer_budget_spent)', async () => {
    const { p, m } = await setupPlatform(f.h);
    const s = await session(p.secretKey, m.external_id);
    const day = new Date(Number((await f.chain.publicClient.getBlock()).timestamp) * 1000).toISOString().slice(0, 10);
    const spend = (wei: string) => sql`insert into relayer_budget_days (chain_id, day, spent_wei) values (84532, ${day}::date, ${wei}::numeric)
      on conflict (chain_id, day) do update set spent_wei = excluded.spent_wei`.execute(f.h.db);
    const before = (await sql<{ s: string }>`select coalesce((select spent_wei::text from relayer_budget_days where chain_id = 84532 and day = ${day}::date), '0') as s`.execute(f.h.db)).rows[0]!.s;
    await spend((10n ** 30n).toString());
    const nonce = await relayerNonce();
    const res = await wrapFetchWithPayment(appFetch, stockClient(await zeroEthBuyer()))(s.x402_url);
    expect(res.status).toBe(402);
    expect(decode(res.headers.get('PAYMENT-REQUIRED')).error).toBe('trisettle_relayer_budget_spent');
    expect(await relayerNonce()).toBe(nonce);
    await spend(before);
  });

  it('below X402_MIN_AMOUNT (0.01) nothing is offered, signed or sent; between it and GASLESS_MIN_AMOUNT (0.50) it is paid', async () => {
    expect(f.h.config).toMatchObject({ x402MinAmount: 10_000n, gaslessMinAmount: 500_000n });
    const { p, m } = await setupPlatform(f.h);
    const dust = await session(p.secretKey, m.external_id, { amount: '0.009999' });
    const nonce = await relayerNonce();
    // No 402 offer: the stock client gets the 409 back without signing an authorization.
    const signer = await zeroEthBuyer();
    let signed = 0;
    const counting = { ...signer, signTypedData: async (args: Parameters<typeof signer.signTypedData>[0]) => { signed++; return signer.signTypedData(args); } };
    const refused = await wrapFetchWithPayment(appFetch, stockClient(counting as typeof signer))(dust.x402_url);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('PAYMENT-REQUIRED')).toBeNull();
    expect(await refused.json()).toMatchObject({ error: { code: 'order_not_payable', message: 'This order (0.009999 USDC) is below the x402 minimum of 0.01 USDC (X402_MIN_AMOUNT); pay it at the checkout page.' } });
    expect(signed).toBe(0);
    expect(await relayerNonce()).toBe(nonce);
    // The facilitator refuses to make such requirements at all, and makes nothing.
    const sessions = async () => (await sql<{ n: number }>`select count(*)::int as n from checkout_sessions`.execute(f.h.db)).rows[0]!.n;
    const sessionsBefore = await sessions();
    const req = await f.h.request('POST', '/v1/x402/requirements', { key: p.secretKey, body: { merchant_id: m.external_id, amount: '0.009999' } });
    expect(req.status).toBe(422);
    expect(req.body.error).toMatchObject({ code: 'validation_failed', param: 'amount' });
    expect(await sessions()).toBe(sessionsBefore);
    expect((await sql<{ n: number }>`select count(*)::int as n from x402_payments where order_id = ${dust.order_id}`.execute(f.h.db)).rows[0]!.n).toBe(0);

    const cents = await session(p.secretKey, m.external_id, { amount: '0.01' });
    const buyer = await zeroEthBuyer();
    const paid = await whileRelaying(wrapFetchWithPayment(appFetch, stockClient(buyer))(cents.x402_url));
    expect(paid.status, await paid.clone().text()).toBe(200);
    expect(decode(paid.headers.get('PAYMENT-RESPONSE'))).toMatchObject({ success: true, payer: buyer.address });
    expect(await relayerNonce()).toBe(nonce + 1);
  });

  it('an expired session is 410 session_expired, not a 402: the stock client pays nothing', async () => {
    const { p, m } = await setupPlatform(f.h);
    const s = await session(p.secretKey, m.external_id, { expires_in_seconds: 60 });
    await f.chain.increaseTime(120);
    const res = await wrapFetchWithPayment(appFetch, stockClient(await zeroEthBuyer()))(s.x402_url);
    expect(res.status).toBe(410);
    expect((await res.json()).error.code).toBe('session_expired');
    expect((await appFetch(`${f.h.config.publicBaseUrl}/x402/cs_live_unknown`)).status).toBe(404);
  });
});
