import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { BaseError, ContractFunctionRevertedError, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookDeliverer } from '../../src/modules/webhooks/deliver.js';
import { balanceOf, createFlow, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let f: Flow;
let receiver: Receiver;
beforeAll(async () => {
  f = await createFlow({ confirmations: 2 });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await f.close();
});

const deliverer = () => createWebhookDeliverer({ db: f.h.db, config: f.h.config, logger: f.h.services.logger, secrets: f.h.services.webhookSecrets }, { scheduleMs: [50, 50, 50] });

describe('an API order paid on chain', () => {
  it('moves exactly the computed split, and confirms at the depth with a verifiable order.confirmed webhook', async () => {
    const { h, chain } = f;
    const { p, m, platformWallet, merchantWallet } = await setupPlatform(h, 500, 1000);
    const ep = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: receiver.url('/confirmed'), subscribed_events: ['order.confirmed'] } });
    const other = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: receiver.url('/failed-only'), subscribed_events: ['order.failed'] } });
    expect([ep.status, other.status]).toEqual([201, 201]);
    const res = await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: 'chain-1', chain_id: 84532, token: 'USDC', amount: '123.456789', metadata: { sku: 'A-1' } } });
    expect(res.status).toBe(201);
    const o = res.body;
    const who = [chain.treasury, platformWallet, merchantWallet, chain.router, chain.buyers[0]!.address] as Address[];
    const before = await Promise.all(who.map((a) => balanceOf(chain, a)));
    const { paid } = await payAsBuyer(chain, chain.buyers[0]!, o);
    expect(paid).toHaveLength(1);
    const after = await Promise.all(who.map((a) => balanceOf(chain, a)));
    const delta = after.map((a, i) => a - before[i]!);
    const s = o.computed_split;
    expect(delta).toEqual([BigInt(s.service_fee), BigInt(s.platform_fee), BigInt(s.merchant_available), BigInt(s.reserve_hold), -123_456_789n]);

    // Not yet at depth (2 confirmations): still pending.
    await h.services.indexer.runOnce(84532);
    expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.state).toBe('pending_payment');
    await chain.mine(2);
    expect(await h.services.indexer.runOnce(84532)).toBeGreaterThanOrEqual(1);
    const confirmed = (await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body;
    expect(confirmed).toMatchObject({ state: 'confirmed', paid_by: chain.buyers[0]!.address, payment_method: 'approve_and_pay' });
    expect(confirmed.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);

    // Receiver down for the first two attempts, then back: delivered once it is.
    receiver.reply({ status: 500 }, { status: 503 });
    const d = deliverer();
    for (let i = 0; i < 10 && !receiver.received.some((r) => r.path === '/confirmed' && r.headers['x-webhook-signature'] && true) || i < 3; i++) {
      await d.runOnce();
      await new Promise((r) => setTimeout(r, 80));
    }
    const hits = receiver.received.filter((r) => r.path === '/confirmed');
    expect(hits.length).toBeGreaterThanOrEqual(3);
    const last = hits.at(-1)!;
    const ts = String(last.headers['x-webhook-timestamp']);
    const expected = createHmac('sha256', ep.body.secret).update(`${ts}.${last.rawBody}`).digest('hex');
    expect(String(last.headers['x-webhook-signature']).split(',')).toContain(`v1=${expected}`);
    const event = JSON.parse(last.rawBody);
    expect(event).toMatchObject({ type: 'order.confirmed', data: { object: { id: o.id, state: 'confirmed', metadata: { sku: 'A-1' } } } });
    expect(receiver.received.filter((r) => r.path === '/failed-only')).toHaveLength(0);
    const deliveries = await h.db.selectFrom('webhook_deliveries').select(['state', 'endpoint_id']).execute();
    expect(deliveries.filter((x) => x.endpoint_id === ep.body.id)).toEqual([{ state: 'succeeded', endpoint_id: ep.body.id }]);

    // Indexing again changes nothing: one confirmation, one event.
    await chain.mine(3);
    await h.services.indexer.runOnce(84532);
    const events = await h.db.selectFrom('events').select('type').where('platform_id', '=', p.platformId).where('type', '=', 'order.confirmed').execute();
    expect(events).toHaveLength(1);
  });

  it('a session locked to payer_address cannot be paid by another wallet', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h);
    const s = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: 'locked-1', chain_id: 84532, token: 'USDC', amount: '5.00', payer_address: chain.buyers[1]!.address } });
    const pub = (await h.request('GET', `/v1/checkout/sessions/${s.body.session_token}`)).body;
    const err = await payAsBuyer(chain, chain.buyers[2]!, pub.order).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(BaseError);
    const revert = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    expect(revert?.data?.errorName).toBe('WrongPayer');
    const ok = await payAsBuyer(chain, chain.buyers[1]!, pub.order);
    expect(ok.paid).toHaveLength(1);
    await chain.mine(2);
    await h.services.indexer.runOnce(84532);
    const after = (await h.request('GET', `/v1/checkout/sessions/${s.body.session_token}`)).body;
    expect(after.state).toBe('completed');
    expect(after.order.state).toBe('confirmed');
  });

  it('splits random amounts and rates exactly as the router transfers them', async () => {
    const { h, chain } = f;
    await fc.assert(fc.asyncProperty(
      fc.bigInt({ min: 1n, max: 50_000_000_000n }), fc.integer({ min: 0, max: 9900 }), fc.integer({ min: 0, max: 10000 }),
      async (units, platformBps, reserveBps) => {
        const { p, m, platformWallet, merchantWallet } = await setupPlatform(h, platformBps, reserveBps);
        const amount = `${units / 1_000_000n}.${(units % 1_000_000n).toString().padStart(6, '0')}`;
        const o = (await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: `prop-${units}-${platformBps}`, chain_id: 84532, token: 'USDC', amount } })).body;
        const who = [chain.treasury, platformWallet, merchantWallet, chain.router] as Address[];
        const before = await Promise.all(who.map((a) => balanceOf(chain, a)));
        await payAsBuyer(chain, chain.buyers[0]!, o);
        const after = await Promise.all(who.map((a) => balanceOf(chain, a)));
        const s = o.computed_split;
        expect(after.map((a, i) => (a - before[i]!).toString())).toEqual([s.service_fee, s.platform_fee, s.merchant_available, s.reserve_hold]);
        expect(BigInt(s.service_fee) + BigInt(s.platform_fee) + BigInt(s.reserve_hold) + BigInt(s.merchant_available)).toBe(units);
      }), { numRuns: 6 });
  });
});

describe('indexer robustness', () => {
  it('a crash after reading logs and before commit loses and doubles nothing', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h);
    const orders = [];
    for (let i = 0; i < 3; i++) {
      orders.push((await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: `crash-${i}`, chain_id: 84532, token: 'USDC', amount: '2.00' } })).body);
    }
    for (const o of orders) await payAsBuyer(chain, chain.buyers[0]!, o);
    await chain.mine(3);
    const { createIndexer } = await import('../../src/modules/indexer/service.js');
    const s = h.services;
    const crashing = createIndexer({ db: h.db, config: h.config, chains: s.chains, handlers: s.chainEvents, logger: s.logger, metrics: s.metrics, faults: { beforeCommit: () => { throw new Error('killed'); } } });
    await expect(crashing.runOnce(84532)).rejects.toThrow('killed');
    for (const o of orders) expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.state).toBe('pending_payment');
    await s.indexer.runOnce(84532);
    await s.indexer.runOnce(84532);
    for (const o of orders) expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.state).toBe('confirmed');
    const events = await h.db.selectFrom('events').select('data').where('platform_id', '=', p.platformId).where('type', '=', 'order.confirmed').execute();
    expect(events).toHaveLength(3);
  });

  it('a payment reorged out before the confirmation depth never confirms; re-mined, it confirms once', async () => {
    const { h, chain } = f;
    const { p, m } = await setupPlatform(h);
    const o = (await h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: 'reorg-1', chain_id: 84532, token: 'USDC', amount: '7.00' } })).body;
    await h.services.indexer.runOnce(84532);
    const snapshot = await chain.anvil.snapshot();
    await payAsBuyer(chain, chain.buyers[2]!, o); // 1 confirmation: below the depth of 2
    await h.services.indexer.runOnce(84532);
    expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.state).toBe('pending_payment');
    await chain.anvil.revert({ id: snapshot }); // the payment's block disappears
    await chain.mine(4);
    await h.services.indexer.runOnce(84532);
    expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.state).toBe('pending_payment');
    await payAsBuyer(chain, chain.buyers[2]!, o); // paid again on the new chain
    await chain.mine(3);
    await h.services.indexer.runOnce(84532);
    expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.state).toBe('confirmed');
    const events = await h.db.selectFrom('events').select('id').where('platform_id', '=', p.platformId).where('type', '=', 'order.confirmed').execute();
    expect(events).toHaveLength(1);
  });

  it('shows its state on /_/indexer/status and stops and starts', async () => {
    const { h } = f;
    const admin = { authorization: 'Bearer adm_test_token_0123456789abcdef' };
    const started = await h.request('POST', '/_/indexer/start', { headers: admin });
    expect(started.status).toBe(200);
    expect(started.body.chains[0]).toMatchObject({ chain_id: 84532, running: true, confirmations: 2 });
    // The started worker runs a pass on its own: wait for the status to show it (no fixed sleep), then check it.
    let status = await h.request('GET', '/_/indexer/status', { headers: admin });
    for (const until = Date.now() + 15_000; status.body.chains[0].head === null && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 50));
      status = await h.request('GET', '/_/indexer/status', { headers: admin });
    }
    expect(status.body.chains[0].cursor).not.toBeNull();
    expect(status.body.chains[0].head).not.toBeNull();
    expect(BigInt(status.body.chains[0].cursor)).toBeLessThanOrEqual(BigInt(status.body.chains[0].head));
    const stopped = await h.request('POST', '/_/indexer/stop', { headers: admin });
    expect(stopped.body.running).toBe(false);
    expect((await h.request('GET', '/_/indexer/status')).status).toBe(401);
  });
});
