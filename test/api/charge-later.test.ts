import { sql } from 'kysely';
import { decodeFunctionData, recoverTypedDataAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { payOrderFromJson, payOrderTypes } from '../../src/chain/eip712.js';
import { computeSplit } from '../../src/modules/orders/split.js';
import { authorize, captureOnChain, endAuthorization, PAYER } from '../helpers/authorizations.js';
import { fakeChain, merchant } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * Charge later at the API (issue 27), with a fake chain: orders are created and captured or voided through the
 * API, and the router's events are applied through the indexer's handler table (test/helpers/authorizations.ts).
 */
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let other: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };
let signer: string;
const WEEK = 604_800;

beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness(chain);
  signer = privateKeyToAccount(chain.config.signerPrivateKey!).address;
  p = await h.platform({ platform_fee_bps: 500 });
  other = await h.platform();
  m = await merchant(h, p.secretKey, { reserve_bps: 1000 });
});
afterAll(async () => { await h.close(); });

let seq = 0;
const body = (extra: Record<string, unknown> = {}) => ({ merchant_id: m.external_id, order_no: `cl_${++seq}`, chain_id: 84532, token: 'USDC', amount: '25.00', ...extra });
const create = (extra: Record<string, unknown> = {}, path = '/v1/orders') => h.request('POST', path, { key: p.secretKey, body: body(extra) });
async function manualOrder(extra: Record<string, unknown> = {}) {
  const res = await create({ capture_method: 'manual', ...extra });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
async function authorized(extra: Record<string, unknown> = {}) {
  const o = await manualOrder(extra);
  await authorize(h, o);
  return o;
}
const capture = (id: string, b: unknown = {}, o: { key?: string; idem?: string } = {}) =>
  h.request('POST', `/v1/orders/${id}/capture`, { key: o.key ?? p.secretKey, body: b, ...(o.idem ? { idem: o.idem } : {}) });
const voidIt = (id: string, key = p.secretKey) => h.request('POST', `/v1/orders/${id}/void`, { key });
const get = async (id: string) => (await h.request('GET', `/v1/orders/${id}`, { key: p.secretKey })).body;
type Intent = { purpose: string; state: string; to_address: string; calldata: string };
const intents = async (id: string) => (await sql<Intent>`select * from operator_txs where ref_id = ${id} order by seq`.execute(h.db)).rows;
const eventsOf = async (id: string) => (await h.db.selectFrom('events').select(['type', 'data']).orderBy('created_at').execute())
  .filter((e) => JSON.stringify(e.data).includes(id)).map((e) => e.type);
const fail = (id: string, outcome: 'rejected' | 'reverted' = 'rejected') => h.db.transaction().execute((tx) =>
  h.services.authorizations.outcomeHandlers.capture(tx, { id: 'otx_t', chainId: 84532, purpose: 'capture', refId: id, outcome, error: 'CaptureExpired', txHash: null, gasUsed: null, effectiveGasPrice: null }));

describe('creating with capture_method', () => {
  it('refuses bad capture_method and capture_within_seconds, on orders and checkout sessions, naming the field', async () => {
    for (const path of ['/v1/orders', '/v1/checkout/sessions']) {
      const cases: [Record<string, unknown>, string][] = [
        [{ capture_method: 'later' }, 'capture_method'],
        [{ capture_method: 'manual', capture_within_seconds: 3599 }, 'capture_within_seconds'],
        [{ capture_method: 'manual', capture_within_seconds: 2_592_001 }, 'capture_within_seconds'],
        [{ capture_method: 'manual', capture_within_seconds: 3600.5 }, 'capture_within_seconds'],
        [{ capture_method: 'automatic', capture_within_seconds: 3600 }, 'capture_within_seconds'],
        [{ capture_within_seconds: 3600 }, 'capture_within_seconds'],
      ];
      for (const [extra, param] of cases) {
        const res = await create(extra, path);
        expect(res.status, `${path} ${JSON.stringify(extra)}`).toBe(422);
        expect(res.body.error).toMatchObject({ code: 'validation_failed', param });
      }
    }
    expect(await h.count('orders')).toBe(0);
  });

  it('an automatic order signs captureDeadline 0 and shows the new fields empty', async () => {
    const res = await create();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ capture_method: 'automatic', capture_before: null, amount_authorized: '0.00', amount_captured: '0.00', void_reason: null, capture_requested_at: null, void_requested_at: null });
    expect(res.body.eip712.message.captureDeadline).toBe('0');
    expect(res.body.eip712.types.PayOrder.at(-1)).toEqual({ name: 'captureDeadline', type: 'uint256' });
  });

  it('a manual order signs capture_before = deadline + the window, and the signature covers it', async () => {
    for (const [extra, window] of [[{}, WEEK], [{ capture_within_seconds: 3600 }, 3600], [{ capture_within_seconds: 2_592_000, expires_in_seconds: 86_400 }, 2_592_000]] as const) {
      const o = await manualOrder(extra);
      const msg = o.eip712.message;
      expect(BigInt(msg.captureDeadline)).toBe(BigInt(msg.deadline) + BigInt(window));
      expect(o.capture_before).toBe(new Date(Number(msg.captureDeadline) * 1000).toISOString());
      expect(o).toMatchObject({ capture_method: 'manual', state: 'pending_payment', amount_authorized: '0.00', amount_captured: '0.00' });
      const { domain, types, primary_type } = o.eip712;
      const { EIP712Domain: _d, ...signed } = types;
      expect(signed).toEqual(JSON.parse(JSON.stringify(payOrderTypes)));
      const recovered = await recoverTypedDataAddress({ domain, types: signed, primaryType: primary_type, message: payOrderFromJson(o.eip712), signature: o.signature });
      expect(recovered).toBe(signer);
    }
  });

  it('a checkout session of a manual order: its order and public read carry the method; it completes at authorization', async () => {
    const s = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: body({ capture_method: 'manual', capture_within_seconds: 7200 }) });
    expect(s.status, s.text).toBe(201);
    const pub = (await h.request('GET', `/v1/checkout/sessions/${s.body.session_token}`)).body;
    expect(pub.order).toMatchObject({ capture_method: 'manual', capture_before: new Date(Date.parse(s.body.expires_at) + 7_200_000 - (Date.parse(s.body.expires_at) % 1000)).toISOString() });
    await authorize(h, await get(s.body.order_id));
    expect((await h.request('GET', `/v1/checkout/sessions/${s.body.session_token}`)).body).toMatchObject({ state: 'completed', order: { state: 'authorized' } });
    expect(await eventsOf(s.body.order_id)).toEqual(['order.authorized', 'checkout.session.completed']);
  });
});

describe('authorization, capture and void', () => {
  it('OrderAuthorized moves the order to authorized with order.authorized; an automatic order confirmed shows both amounts', async () => {
    const o = await authorized();
    expect(await get(o.id)).toMatchObject({ state: 'authorized', amount_authorized: '25.00', amount_captured: '0.00', paid_by: PAYER });
    expect(await eventsOf(o.id)).toEqual(['order.authorized']);
    const listed = (await h.request('GET', '/v1/orders?state=authorized&limit=100', { key: p.secretKey })).body.data.map((x: { id: string }) => x.id);
    expect(listed).toContain(o.id);
    expect((await h.request('GET', '/v1/orders/summary', { key: p.secretKey })).body.pending).toBe((await h.request('GET', '/v1/orders?state=pending_payment&limit=100', { key: p.secretKey })).body.data.length);
  });

  it('refuses a capture before authorization, above the authorized amount or malformed, of an unknown or another platform\'s order', async () => {
    const pending = await manualOrder();
    expect((await capture(pending.id)).body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('pending_payment') });
    expect((await voidIt(pending.id)).status).toBe(409);
    const o = await authorized();
    for (const amount of ['25.000001', '30', '1.2345678', '0', '-1', 'abc', 5]) {
      const res = await capture(o.id, { amount });
      expect(res.status, String(amount)).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'amount' });
    }
    expect((await capture(o.id, { amount: '1.00', extra: 1 })).status).toBe(422);
    expect((await capture('ord_unknown')).status).toBe(404);
    expect((await capture(o.id, {}, { key: other.secretKey })).status).toBe(404);
    expect((await voidIt(o.id, other.secretKey)).status).toBe(404);
    expect((await capture(o.id, {}, { key: p.publishableKey })).status).toBe(403);
    expect(await intents(o.id)).toEqual([]);
    const automatic = (await create()).body;
    expect((await capture(automatic.id)).status).toBe(409);
  });

  it('a partial capture: 202, one capture intent with the split of the captured amount; then confirmed by OrderCaptured + OrderPaid', async () => {
    const o = await authorized();
    const res = await capture(o.id, { amount: '10.10' });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ id: o.id, state: 'authorized', capture_requested_at: expect.any(String) });
    const [intent, ...more] = await intents(o.id);
    expect(more).toEqual([]);
    expect(intent).toMatchObject({ purpose: 'capture', state: 'queued', to_address: o.pay_to });
    const call = decodeFunctionData({ abi: paymentRouterAbi, data: intent!.calldata as Hex });
    const s = computeSplit(10_100_000n, 100, 500, 1000);
    expect(call).toEqual({ functionName: 'capture', args: [payOrderFromJson(o.eip712), 10_100_000n, s.serviceFee, s.platformFee, s.reserveHold] });
    // Nothing else may be asked while it is on its way.
    expect((await capture(o.id)).body.error.code).toBe('invalid_state');
    expect((await voidIt(o.id)).body.error.code).toBe('invalid_state');

    await captureOnChain(h, o, 10_100_000n);
    const done = await get(o.id);
    expect(done).toMatchObject({
      state: 'confirmed', amount_authorized: '25.00', amount_captured: '10.10', amount: '25.00',
      computed_split: { service_fee: String(s.serviceFee), platform_fee: String(s.platformFee), merchant_gross: String(s.merchantGross), reserve_hold: String(s.reserveHold), merchant_available: String(s.merchantAvailable) },
      reserve_remaining: String(s.reserveHold),
    });
    expect(await eventsOf(o.id)).toEqual(['order.authorized', 'order.confirmed']);
    const confirmed = (await h.db.selectFrom('events').select('data').where('type', '=', 'order.confirmed').execute()).map((e) => (e.data as { object: { id: string } }).object).find((x) => x.id === o.id);
    expect(confirmed).toMatchObject({ amount_captured: '10.10', state: 'confirmed' });
    // Refunds are bounded by what was captured.
    expect((await h.request('POST', '/v1/refunds', { key: p.secretKey, body: { order_id: o.id, amount: '10.11' } })).body.error.code).toBe('amount_exceeds_refundable');
    expect((await h.request('POST', '/v1/refunds', { key: p.secretKey, body: { order_id: o.id } })).body).toMatchObject({ amount: '10.10' });
    expect((await capture(o.id)).body.error.message).toContain('confirmed');
  });

  it('replays a capture under its Idempotency-Key, refuses the key for another body, and enqueues once', async () => {
    const o = await authorized();
    const first = await capture(o.id, { amount: '5.00' }, { idem: `cap-${o.id}` });
    expect(first.status).toBe(202);
    const again = await capture(o.id, { amount: '5.00' }, { idem: `cap-${o.id}` });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await capture(o.id, { amount: '6.00' }, { idem: `cap-${o.id}` })).body.error.code).toBe('duplicate_idempotency_key');
    expect(await intents(o.id)).toHaveLength(1);
  });

  it('refuses a capture once the chain clock reaches capture_before; the void still goes out', async () => {
    const o = await authorized({ capture_within_seconds: 3600 });
    const clock = h.services.chains.get(84532).clock;
    clock.observe(BigInt(o.eip712.message.captureDeadline));
    try {
      const res = await capture(o.id);
      expect(res.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('capture window ended') });
      clock.observe(BigInt(o.eip712.message.captureDeadline) - 2n);
      expect((await voidIt(o.id)).status).toBe(202);
    } finally {
      clock.observe(BigInt(Math.floor(Date.now() / 1000)));
    }
  });

  it('a refused capture clears the request so it can be asked again, at most 3 times (operator gas, tested with the attack)', async () => {
    const o = await authorized();
    for (let i = 0; i < 3; i++) {
      expect((await capture(o.id)).status).toBe(202);
      await fail(o.id, i === 1 ? 'reverted' : 'rejected');
      expect(await get(o.id)).toMatchObject({ state: 'authorized', capture_requested_at: null });
    }
    const fourth = await capture(o.id);
    expect(fourth.body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('3 captures failed') });
    expect(await intents(o.id)).toHaveLength(3);
    const alerts = await h.db.selectFrom('chain_alerts').select('detail').where('kind', '=', 'capture_failed').execute();
    expect(alerts.filter((a) => JSON.stringify(a.detail).includes(o.id))).toHaveLength(3);
    expect((await voidIt(o.id)).status).toBe(202);
  });

  it('void: 202 with one voidAuthorization; AuthorizationVoided → voided (requested), order.voided, order_no free again', async () => {
    const o = await authorized();
    const res = await voidIt(o.id);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ state: 'authorized', void_requested_at: expect.any(String) });
    const [intent] = await intents(o.id);
    expect(decodeFunctionData({ abi: paymentRouterAbi, data: intent!.calldata as Hex })).toEqual({ functionName: 'voidAuthorization', args: [o.eip712.message.orderId] });
    expect((await voidIt(o.id)).body.error.code).toBe('invalid_state');
    expect((await capture(o.id)).body.error.code).toBe('invalid_state');
    await endAuthorization(h, o, 'void');
    expect(await get(o.id)).toMatchObject({ state: 'voided', void_reason: 'requested', amount_captured: '0.00', amount_authorized: '25.00' });
    expect(await eventsOf(o.id)).toEqual(['order.authorized', 'order.voided']);
    expect((await capture(o.id)).body.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('voided') });
    expect((await create({ order_no: o.order_no })).status).toBe(201);
    expect((await h.request('GET', '/v1/orders?state=voided&limit=100', { key: p.secretKey })).body.data.map((x: { id: string }) => x.id)).toContain(o.id);
  });

  it('the payer\'s reclaim voids with reclaimed_by_payer, even with a capture on its way', async () => {
    const o = await authorized();
    expect((await capture(o.id)).status).toBe(202);
    await endAuthorization(h, o, 'reclaim');
    expect(await get(o.id)).toMatchObject({ state: 'voided', void_reason: 'reclaimed_by_payer' });
  });

  it('the sweeper voids authorizations past capture_before on the indexed chain time, once each, as authorization_expired', async () => {
    const a = await authorized({ capture_within_seconds: 3600 });
    const b = await authorized({ capture_within_seconds: 7200 });
    const until = new Date(Date.parse(a.capture_before));
    expect(await h.services.authorizations.voidExpired(84532, new Date(until.getTime() - 1000))).toBe(0);
    expect(await h.services.authorizations.voidExpired(84532, until)).toBeGreaterThanOrEqual(1);
    expect(await h.services.authorizations.voidExpired(84532, until)).toBe(0);
    expect(await intents(a.id)).toMatchObject([{ purpose: 'authorization_void' }]);
    expect(await intents(b.id)).toEqual([]);
    expect((await voidIt(a.id)).body.error.code).toBe('invalid_state');
    await endAuthorization(h, a, 'void');
    expect(await get(a.id)).toMatchObject({ state: 'voided', void_reason: 'authorization_expired' });
  });

  it('an OrderPaid for an authorized order without its capture moves nothing (alert)', async () => {
    const o = await authorized();
    const m2 = o.eip712.message;
    await h.db.transaction().execute((tx) => h.services.chainEvents.OrderPaid(tx, [{
      chainId: 84532, orderId: m2.orderId as Hex, payer: PAYER, merchant: m2.merchant as Hex, token: m2.token as Hex, amount: 25_000_000n,
      serviceFee: BigInt(m2.serviceFee), platformFee: BigInt(m2.platformFee), reserveHold: BigInt(m2.reserveHold), platform: m2.platform as Hex,
      releaseAfter: 0n, txHash: `0x${'77'.repeat(32)}`, blockNumber: 9n, blockTime: new Date(),
    }]));
    expect((await get(o.id)).state).toBe('authorized');
    const alert = await h.db.selectFrom('chain_alerts').select('detail').where('kind', '=', 'paid_mismatch').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(alert.detail).toMatchObject({ order_id: o.id, fields: expect.arrayContaining(['capture']) });
  });
});
