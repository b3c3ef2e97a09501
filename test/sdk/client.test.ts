/**
 * The SDK against the real service (`node --import tsx src/main.ts`, devnet chain, workers running):
 * idempotent retries over a dropped response, typed errors, cursor iteration, real webhook deliveries.
 */
import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Trisettle, TrisettleError, verifyWebhook, type Merchant, type WebhookEventOf } from '@trisettle/sdk';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { makePublicClient, makeWalletClient } from '../../src/chain/clients.js';
import { payOrderFromJson } from '../../src/chain/eip712.js';
import { TEST_DB } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { platformKey, startService, type Service } from '../helpers/service-process.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 150_000 });

let service: Service;
let secretKey: string;
let client: Trisettle;
let receiver: Receiver;
const wallet = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  [service, receiver] = await Promise.all([startService('sdk-client'), startReceiver()]);
  secretKey = await platformKey(service.baseUrl, wallet());
  client = new Trisettle({ secretKey, baseUrl: service.baseUrl, retryDelayMs: 20 });
});
afterAll(async () => {
  await receiver?.close();
  await service?.stop();
});

const newMerchant = (i: number | string = randomUUID().slice(0, 8)) =>
  client.merchants.create({ external_id: `shop-${i}`, name: `Shop ${i}`, merchant_wallet: wallet(), chain_id: 84532, reserve_bps: 1000 });

describe('the SDK against a running service', () => {
  it('creates and reads every kind of resource with typed results', async () => {
    const me = await client.me();
    expect(me).toMatchObject({ auth_kind: 'secret_key', onboarded: true });
    const m = await newMerchant('typed');
    expect(await client.merchants.retrieve('shop-typed')).toEqual(m);
    const order = await client.orders.create({ merchant_id: m.external_id, order_no: 'typed-1', chain_id: 84532, token: 'USDC', amount: '10.00', metadata: { sku: 'A' } });
    expect(order.state).toBe('pending_payment');
    expect(order.computed_split).toEqual({ service_fee: '100000', platform_fee: '500000', merchant_gross: '9400000', reserve_hold: '940000', merchant_available: '8460000' });
    expect((await client.orders.retrieve(order.id)).order_no).toBe('typed-1');
    expect((await client.orders.summary()).pending).toBeGreaterThanOrEqual(1);
    const session = await client.checkoutSessions.create({ merchant_id: m.external_id, order_no: 'typed-2', chain_id: 84532, token: 'USDC', amount: '3.25' });
    const view = await client.checkoutSessions.retrieve(session.session_token);
    expect(view).toMatchObject({ state: 'open', order: { id: session.order_id, amount: '3.25' }, chain: { chain_id: 84532 } });
    const inv = await client.invitations.create({ external_id: 'invited-1', suggested_name: 'Invited', chain_id: 84532 });
    expect(inv.token).toMatch(/^moi_live_/);
    expect((await client.invitations.retrieve(inv.token!, { wallet: wallet() })).message).toContain('invited-1');
    expect((await client.invitations.list()).data.map((i) => i.id)).toContain(inv.id);
    const keys = await client.keys.list().toArray();
    expect(keys.map((k) => k.kind).sort()).toEqual(['publishable', 'secret']);
    const log = await client.auditLog.list({ limit: 1 }).toArray();
    expect(log.map((e) => [e.action, e.actor.type]).sort()).toEqual([['key.created', 'session'], ['key.created', 'session']]);
    expect((await client.refunds.list()).data).toEqual([]);
    expect((await client.settlements.list()).data).toEqual([]);
    expect((await client.health()).ok).toBe(true);
  });

  it('a POST whose response is lost is retried with the same Idempotency-Key and answered by the replay', async () => {
    const m = await newMerchant();
    const seen: { key: string | null; status: number; replayed: string | null }[] = [];
    let drop = true;
    const flaky = new Trisettle({
      secretKey, baseUrl: service.baseUrl, retryDelayMs: 20,
      fetch: async (url, init) => {
        const res = await fetch(url, init);
        seen.push({ key: new Headers(init?.headers).get('idempotency-key'), status: res.status, replayed: res.headers.get('idempotent-replayed') });
        if (drop && init?.method === 'POST') {
          drop = false;
          await res.text(); // the service did the work; the answer never reaches the caller
          throw new TypeError('fetch failed: socket hang up');
        }
        return res;
      },
    });
    const order = await flaky.orders.create({ merchant_id: m.external_id, order_no: 'dropped-1', chain_id: 84532, token: 'USDC', amount: '7.00' });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]).toEqual({ key: seen[0]!.key, status: 201, replayed: 'true' });
    const same = [];
    for await (const o of client.orders.list({ merchant_id: m.external_id })) if (o.order_no === 'dropped-1') same.push(o.id);
    expect(same).toEqual([order.id]);
  });

  it('two racing calls with one key create one order (409 idempotency_key_in_use is retried)', async () => {
    const m = await newMerchant();
    const key = randomUUID();
    const params = { merchant_id: m.external_id, order_no: 'race-1', chain_id: 84532 as const, token: 'USDC' as const, amount: '1.50' };
    // Patient retries: the losers wait out the winner however slow the machine is (≥ 3 s of backoff in all).
    const patient = new Trisettle({ secretKey, baseUrl: service.baseUrl, retryDelayMs: 100, maxRetries: 6 });
    const [a, b, c] = await Promise.all([0, 1, 2].map(() => patient.orders.create(params, { idempotencyKey: key })));
    expect(new Set([a!.id, b!.id, c!.id]).size).toBe(1);
  });

  it('errors carry status, code, type, param and the request id', async () => {
    const m = await newMerchant();
    const fail = (p: PromiseLike<unknown>) => Promise.resolve(p).then(() => { throw new Error('expected a TrisettleError'); }, (e: unknown) => e as TrisettleError);

    const invalid = await fail(client.orders.create({ merchant_id: m.external_id, order_no: 'bad-1', chain_id: 84532, token: 'USDC', amount: '1.2345678' }));
    expect(invalid).toBeInstanceOf(TrisettleError);
    expect(invalid).toMatchObject({ status: 422, code: 'validation_failed', type: 'invalid_request_error', param: 'amount' });
    expect(invalid.requestId).toMatch(/\S{8,}/);

    const missing = await fail(client.orders.retrieve('ord_doesnotexist'));
    expect(missing).toMatchObject({ status: 404, code: 'not_found', param: undefined });

    await client.orders.create({ merchant_id: m.external_id, order_no: 'dup-1', chain_id: 84532, token: 'USDC', amount: '2.00' });
    const dup = await fail(client.orders.create({ merchant_id: m.external_id, order_no: 'dup-1', chain_id: 84532, token: 'USDC', amount: '2.00' }));
    expect(dup).toMatchObject({ status: 409, code: 'conflict' });

    const key = randomUUID();
    await client.orders.create({ merchant_id: m.external_id, order_no: 'idem-1', chain_id: 84532, token: 'USDC', amount: '2.00' }, { idempotencyKey: key });
    const reused = await fail(client.orders.create({ merchant_id: m.external_id, order_no: 'idem-2', chain_id: 84532, token: 'USDC', amount: '2.00' }, { idempotencyKey: key }));
    expect(reused).toMatchObject({ status: 409, code: 'duplicate_idempotency_key', type: 'idempotency_error' });

    const bad = new Trisettle({ secretKey: 'sk_live_notakey', baseUrl: service.baseUrl });
    expect(await fail(bad.orders.list())).toMatchObject({ status: 401, code: 'unauthenticated', type: 'authentication_error' });
  });

  it('charge later: capture and void are typed, and refused with the API\'s errors before the payment is authorized', async () => {
    const m = await newMerchant();
    const fail = (p: PromiseLike<unknown>) => Promise.resolve(p).then(() => { throw new Error('expected a TrisettleError'); }, (e: unknown) => e as TrisettleError);
    const order = await client.orders.create({ merchant_id: m.external_id, order_no: 'later-1', chain_id: 84532, token: 'USDC', amount: '4.00', capture_method: 'manual', capture_within_seconds: 3600 });
    expect(order).toMatchObject({ capture_method: 'manual', amount_authorized: '0.00', amount_captured: '0.00', void_reason: null });
    expect(Date.parse(order.capture_before!)).toBe((Number(order.eip712.message.deadline) + 3600) * 1000);
    expect(await fail(client.orders.capture(order.id))).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(await fail(client.orders.capture(order.id, { amount: '4.0000001' }))).toMatchObject({ status: 422, code: 'validation_failed', param: 'amount' });
    expect(await fail(client.orders.void(order.id))).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(await fail(client.orders.capture('ord_doesnotexist'))).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('charge later end to end on the devnet: the buyer pays, the order is authorized, the SDK captures part of it', async () => {
    const m = await newMerchant();
    const order = await client.orders.create({ merchant_id: m.external_id, order_no: 'later-2', chain_id: 84532, token: 'USDC', amount: '8.00', capture_method: 'manual' });
    const buyer = privateKeyToAccount(service.devnet.accounts[5]!.private_key);
    const opts = { rpcUrl: service.devnet.rpc_url, chainId: 84532, devnet: true };
    const wallet = makeWalletClient({ ...opts, account: buyer });
    const reader = makePublicClient(opts);
    const message = payOrderFromJson(order.eip712 as never);
    await reader.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: message.token, abi: circleUsdcAbi, functionName: 'approve', args: [order.pay_to as Hex, message.amount] }) });
    await reader.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: order.pay_to as Hex, abi: paymentRouterAbi, functionName: 'payOrder', args: [message, order.signature as Hex] }) });
    const until = async (state: string) => {
      for (let i = 0; i < 150; i++) {
        const o = await client.orders.retrieve(order.id);
        if (o.state === state) return o;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`order never reached ${state}`);
    };
    expect(await until('authorized')).toMatchObject({ amount_authorized: '8.00', paid_by: buyer.address });
    expect(await client.orders.capture(order.id, { amount: '5.00' })).toMatchObject({ state: 'authorized', capture_requested_at: expect.any(String) });
    expect(await until('confirmed')).toMatchObject({ amount_captured: '5.00', computed_split: { service_fee: '50000', platform_fee: '250000' } });
  });

  it('list iteration follows next_cursor across every page', async () => {
    const m = await newMerchant();
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await client.orders.create({ merchant_id: m.external_id, order_no: `page-${i}`, chain_id: 84532, token: 'USDC', amount: '1.00' })).id);
    const listed: string[] = [];
    for await (const o of client.orders.list({ merchant_id: m.external_id, state: 'pending_payment', limit: 3 })) listed.push(o.id);
    expect(listed).toEqual([...created].reverse()); // newest first, each once
    const pages = [];
    for await (const p of client.orders.list({ merchant_id: m.external_id, limit: 3 }).pages()) pages.push(p.data.length);
    expect(pages).toEqual([3, 3, 1]);
    const merchants: Merchant[] = await client.merchants.list({ limit: 2 }).toArray();
    expect(merchants.length).toBeGreaterThanOrEqual(5);
    expect(new Set(merchants.map((x) => x.id)).size).toBe(merchants.length);
  });

  it('subscriptions: the public read with { payer } gives a permit ready to sign; the payer signs once; the charge is listed by subscription_id', async () => {
    const m = await newMerchant();
    const sub = await client.subscriptions.create({ merchant_id: m.external_id, chain_id: 84532, token: 'USDC', amount: '2.50', interval: 'week', max_periods: 4 });
    expect(sub).toMatchObject({ state: 'incomplete', current_period_end: null });
    const token = new URL(sub.url!).pathname.split('/').pop()!;
    const payer = privateKeyToAccount(generatePrivateKey());
    const anon = client; // public routes: the key is not needed, and not used
    const read = await anon.subscriptions.retrieveAuthorization(token, { payer: payer.address });
    expect(read.allowance.permit).toMatchObject({ nonce_filled: true, typed_data: { message: { owner: payer.address, nonce: '0', value: String(2_500_000n * 4n) } } });
    expect(read.typed_data.message).toMatchObject({ payer: payer.address });
    const bad = await anon.subscriptions.retrieveAuthorization(token, { payer: 'not-an-address' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(TrisettleError);
    expect(bad).toMatchObject({ status: 422, code: 'validation_failed', param: 'payer' });
    const t = read.typed_data as { domain: any; types: any; message: any };
    const message = { ...t.message, amount: BigInt(t.message.amount), salt: BigInt(t.message.salt) };
    const signature = await payer.signTypedData({ domain: t.domain, types: t.types, primaryType: 'SpendPermission', message });
    const active = await anon.subscriptions.authorize(token, { payer: payer.address, start: t.message.start, signature });
    expect(active).toMatchObject({ id: sub.id, state: 'active', payer: payer.address });
    // Listed; its state may already be past_due (the service charges period 0 at once and this payer has no USDC),
    // never canceled within the first period's dunning.
    expect((await client.subscriptions.list().toArray()).map((s) => s.id)).toContain(sub.id);
    expect((await client.subscriptions.list({ state: 'canceled' }).toArray()).map((s) => s.id)).not.toContain(sub.id);
    // No allowance or balance: the first charge is an order that fails, listed under the subscription.
    let charges: { subscription_id?: string | null; subscription_period?: number | null }[] = [];
    for (let i = 0; i < 60 && charges.length === 0; i++) {
      charges = await client.orders.list({ subscription_id: sub.id }).toArray();
      if (charges.length === 0) await new Promise((r) => setTimeout(r, 500));
    }
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ subscription_id: sub.id, subscription_period: 0 });
    expect(await client.orders.list({ subscription_id: `sub_${'0'.repeat(20)}` }).toArray()).toEqual([]);
  });

  it('a real delivery verifies, also with both signatures after a secret roll', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url('/sdk'), subscribed_events: ['merchant.created'] });
    const first = await newMerchant();
    await receiver.waitFor(1, 20_000);
    const hit = receiver.received.at(-1)!;
    const event = verifyWebhook(hit.rawBody, hit.headers, endpoint.secret!);
    expect(event.type).toBe('merchant.created');
    expect((event as WebhookEventOf<'merchant.created'>).data.object.id).toBe(first.id);
    expect(hit.headers['x-webhook-id']).toBe(event.id);
    expect((await client.events.retrieve(event.id)).type).toBe('merchant.created');

    const rolled = await client.webhookEndpoints.rollSecret(endpoint.id);
    expect(rolled.secret).not.toBe(endpoint.secret);
    const second = await newMerchant();
    await receiver.waitFor(2, 20_000);
    const again = receiver.received.at(-1)!;
    expect(String(again.headers['x-webhook-signature']).split(',')).toHaveLength(2);
    for (const secret of [rolled.secret!, endpoint.secret!]) {
      expect((verifyWebhook(again.rawBody, again.headers, secret) as WebhookEventOf<'merchant.created'>).data.object.id).toBe(second.id);
    }
    // The receiver has answered; the service records the outcome just after. Wait for it, bounded.
    let deliveries = await client.webhookEndpoints.listDeliveries(endpoint.id).toArray();
    for (let i = 0; i < 50 && deliveries.some((d) => d.state === 'pending'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      deliveries = await client.webhookEndpoints.listDeliveries(endpoint.id).toArray();
    }
    expect(deliveries.map((d) => d.state)).toEqual(['succeeded', 'succeeded']);
    expect(await client.webhookEndpoints.delete(endpoint.id)).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
  });

  it.runIf(TEST_DB === 'postgres')('ran on the PostgreSQL database it was given', async () => {
    const rows = await service.database!.selectFrom('merchants').select('external_id').execute();
    expect(rows.map((r) => r.external_id)).toContain('shop-typed');
  });
});
