/**
 * Keys rotate without downtime (issue 15, item 4; docs/security.md): during a rotation the old and the new
 * credential are both valid, and once the old one is retired it is refused everywhere.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { loadConfig } from '../../src/config.js';
import { revertOf } from '../helpers/chain.js';
import { balanceOf, createFlow, driveOperator, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { resealAll } from '../../src/modules/webhooks/secrets.js';

const OLD = 'adm_old_token_0123456789abcdef';
const NEW = 'adm_new_token_0123456789abcdef';

describe('admin token rotation', () => {
  let during: Harness;
  let after: Harness;
  beforeAll(async () => {
    during = await createHarness({ config: { adminToken: `${NEW},${OLD}` } });
    after = await createHarness({ config: { adminToken: NEW } });
  });
  afterAll(async () => { await during.close(); await after.close(); });

  const status = (h: Harness, token: string) => h.request('GET', '/_/indexer/status', { key: token });

  it('accepts both tokens while ADMIN_TOKEN lists both, and only the new one once the old is dropped', async () => {
    expect((await status(during, NEW)).status).toBe(200);
    expect((await status(during, OLD)).status).toBe(200);
    expect((await status(during, `${NEW},${OLD}`)).status).toBe(401);
    expect((await status(after, NEW)).status).toBe(200);
    expect((await status(after, OLD)).status).toBe(401);
  });

  it('refuses to start with a short token anywhere in the list, naming the variable', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: `${NEW},short` }, [])).toThrow(/ADMIN_TOKEN/);
  });
});

describe('signer rotation on the router', () => {
  let f: Flow;
  let next: Harness;
  let setup: Awaited<ReturnType<typeof setupPlatform>>;
  const newKey = generatePrivateKey();
  beforeAll(async () => {
    f = await createFlow();
    setup = await setupPlatform(f.h);
  });
  afterAll(async () => { await next?.close(); await f.close(); });

  const orderFrom = (h: Harness, orderNo: string) =>
    h.request('POST', '/v1/orders', { key: setup.p.secretKey, body: { merchant_id: setup.m.external_id, order_no: orderNo, chain_id: 84532, token: 'USDC', amount: '3.00' } });
  const owner = () => f.chain.walletClientFor(f.chain.owner);
  const setSigner = async (fn: 'addSigner' | 'removeSigner', key: `0x${string}`) =>
    f.chain.confirm(await owner().writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: fn, args: [privateKeyToAccount(key).address] }));

  it('old and new signer both sign payable orders during the overlap; the old one is refused once removed', async () => {
    const before = (await orderFrom(f.h, 'rot-1')).body;
    await setSigner('addSigner', newKey);
    // A new instance with the new key starts beside the old one, on the same database.
    next = await createHarness({ database: f.h.database, chains: [...f.h.config.chains.values()], config: { ...f.h.config, signerPrivateKey: newKey } });
    const during = (await orderFrom(next, 'rot-2')).body;
    const stale = (await orderFrom(f.h, 'rot-3')).body; // the old instance is still serving
    await payAsBuyer(f.chain, f.chain.buyers[0]!, before);
    await payAsBuyer(f.chain, f.chain.buyers[1]!, during);

    await setSigner('removeSigner', f.h.config.signerPrivateKey!);
    const err = await revertOf(payAsBuyer(f.chain, f.chain.buyers[2]!, stale));
    expect(err.errorName).toBe('InvalidSigner');
    const fresh = (await orderFrom(next, 'rot-4')).body;
    const { paid } = await payAsBuyer(f.chain, f.chain.buyers[2]!, fresh);
    expect(paid).toHaveLength(1);
  });
});

describe('session secret rotation (BETTER_AUTH_SECRET)', () => {
  const S1 = 'first-session-secret-0123456789-abcdefghij';
  const S2 = 'second-session-secret-0123456789-abcdefghij';
  let before: Harness;
  let during: Harness;
  let after: Harness;
  beforeAll(async () => {
    before = await createHarness({ authSecret: S1 });
    during = await createHarness({ authSecret: `${S2},${S1}`, database: before.database });
    after = await createHarness({ authSecret: S2, database: before.database });
  });
  afterAll(async () => { await before.close(); });

  it('keeps sealed answers and webhook secrets readable while both are listed; only dashboard sessions end', async () => {
    const p = await before.platform();
    const body = { url: 'https://93.184.215.14/rotation', subscribed_events: ['order.confirmed'] };
    const created = await before.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body, idem: 'rotate-1' });
    expect(created.status).toBe(201);
    const row = () => before.db.selectFrom('webhook_endpoints').select(['secret']).where('id', '=', created.body.id).executeTakeFirstOrThrow();

    // During the roll-out: the idempotent answer sealed under S1 replays, the webhook secret opens.
    const replay = await during.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body, idem: 'rotate-1' });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.secret]).toEqual([201, 'true', created.body.secret]);
    expect(during.services.webhookSecrets.open((await row()).secret)).toBe(created.body.secret);
    // Start-up re-seals with the new secret; then an instance that lists only S2 signs deliveries with it.
    expect((await resealAll(during.db, during.services.webhookSecrets)).unreadable).toEqual([]);
    expect(after.services.webhookSecrets.open((await row()).secret)).toBe(created.body.secret);
    expect(() => before.services.webhookSecrets.open('s1:00000000:v1:AAAA')).toThrow();

    // API keys are unaffected; a dashboard session signed with S1 is not accepted once S2 signs sessions.
    expect((await after.request('GET', '/v1/me', { key: p.secretKey })).status).toBe(200);
    expect((await before.request('GET', '/v1/me', { cookie: p.cookie })).status).toBe(200);
    expect((await after.request('GET', '/v1/me', { cookie: p.cookie })).status).toBe(401);
  });
});

describe('operator rotation on the router', () => {
  let f: Flow;
  let next: Harness;
  let setup: Awaited<ReturnType<typeof setupPlatform>>;
  const newOperator = generatePrivateKey();
  beforeAll(async () => {
    f = await createFlow();
    setup = await setupPlatform(f.h);
    await f.chain.anvil.setBalance({ address: privateKeyToAccount(newOperator).address, value: 10n ** 20n });
  });
  afterAll(async () => { await next?.close(); await f.close(); });

  it('while the key rolls out, refunds go out at once (anyone may submit one) and a batch refused with NotOperator is rebuilt and sent by the new key once setOperator lands', async () => {
    const o = (await f.h.request('POST', '/v1/orders', { key: setup.p.secretKey, body: { merchant_id: setup.m.external_id, order_no: 'rot-op-1', chain_id: 84532, token: 'USDC', amount: '20.00' } })).body;
    await payAsBuyer(f.chain, f.chain.buyers[0]!, o);
    await f.chain.mine(1);
    await f.h.services.indexer.runOnce(84532);
    // The workers restart with the new key before the owner has called setOperator.
    const newAddress = privateKeyToAccount(newOperator).address;
    next = await createHarness({ database: f.h.database, chains: [...f.h.config.chains.values()], config: { ...f.h.config, operatorPrivateKey: newOperator } });
    const refund = await next.request('POST', '/v1/refunds', { key: setup.p.secretKey, body: { order_id: o.id, amount: '1.00' } });
    expect([refund.status, refund.body.state]).toEqual([201, 'pending']);
    await next.services.refunds.runOnce();
    await driveOperator(next, f.chain);
    await f.chain.mine(1);
    await next.services.indexer.runOnce(84532);
    const refunded = (await next.request('GET', `/v1/refunds?order_id=${o.id}`, { key: setup.p.secretKey })).body.data[0];
    expect(refunded.state).toBe('completed');
    expect((await f.chain.publicClient.getTransaction({ hash: refunded.tx_hash })).from).toBe(newAddress.toLowerCase());

    // Past the hold: the batch simulated with the new key before setOperator is refused, nothing moves.
    await f.chain.increaseTime(7 * 86_400 + 60);
    const reserve = async () => (await f.chain.publicClient.readContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'orders', args: [o.eip712.message.orderId] })).reserve;
    const held = await reserve();
    expect(held).toBeGreaterThan(0n);
    await next.services.settlements.runOnce();
    await driveOperator(next, f.chain);
    const refused = (await next.services.operatorTxs.list(84532)).filter((t) => t.purpose === 'settlement');
    expect(refused.map((t) => [t.state, t.error])).toEqual([['rejected', 'NotOperator']]);
    expect(await reserve()).toBe(held);

    await f.chain.confirm(await f.chain.walletClientFor(f.chain.owner).writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'setOperator', args: [newAddress] }));
    const merchantBefore = await balanceOf(f.chain, setup.merchantWallet);
    await next.services.settlements.runOnce();
    await driveOperator(next, f.chain);
    await f.chain.mine(1);
    await next.services.indexer.runOnce(84532);
    expect(await reserve()).toBe(0n);
    expect((await balanceOf(f.chain, setup.merchantWallet)) - merchantBefore).toBe(held);
    const sent = (await next.services.operatorTxs.list(84532)).filter((t) => t.purpose === 'settlement');
    expect(sent.map((t) => t.state).sort()).toEqual(['done', 'rejected']);
  });
});
