import { recoverTypedDataAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refundOrderFromJson, refundOrderTypes, toBytes32Id } from '../../src/chain/eip712.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { FAKE_ROUTER, fakeChain, merchant, order } from '../helpers/factories.js';

/**
 * Refund rules at the API, with a fake chain: orders are marked paid the way the indexer does
 * (orders.transition 'paid'), and completions are applied through the indexer hook.
 */
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };
let signer: string;
const BUYER = '0x976EA74026E726554dB657fA54763abd0C3a0aa9';

beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness(chain);
  signer = privateKeyToAccount(chain.config.signerPrivateKey!).address;
  p = await h.platform({ platform_fee_bps: 500 });
  m = await merchant(h, p.secretKey, { reserve_bps: 1000 });
});
afterAll(async () => { await h.close(); });

/** 25.00 USDC: service fee 0.25, platform fee 1.25, merchant gross 23.50, reserve 2.35. */
async function paidOrder(key = p.secretKey, merchantId = m.external_id, body: Record<string, unknown> = {}) {
  const o = await order(h, key, merchantId, { amount: '25.00', metadata: { cart: 'c_42' }, ...body });
  await h.db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('orders').selectAll().where('id', '=', o.id).executeTakeFirstOrThrow();
    await h.services.orders.transition(tx, row, 'paid', {
      paid_by: BUYER, paid_at: new Date(), tx_hash: `0x${'ab'.repeat(32)}`, block_number: 1n, confirmed_at: new Date(), reserve_remaining: row.reserve_hold,
    }, 'order.confirmed');
  });
  return o as { id: string; amount: string; metadata: Record<string, unknown> };
}

const refund = (body: Record<string, unknown>, key = p.secretKey, idem?: string) =>
  h.request('POST', '/v1/refunds', { key, body, ...(idem ? { idem } : {}) });

/** What the indexer does with a Refunded log of this refund. */
async function complete(r: { id: string; order_id: string; amount: string; eip712: { message: Record<string, string> } }, fromReserve: bigint) {
  const msg = refundOrderFromJson(r.eip712 as never);
  await h.db.transaction().execute((tx) => h.services.refunds.applyRefunded(tx, {
    chainId: 84532, orderOnchainId: msg.orderId, refundOnchainId: msg.refundId, to: msg.to, amount: msg.amount,
    fromReserve, fromSubmitter: msg.amount - fromReserve, txHash: `0x${'cd'.repeat(32)}`, blockTime: new Date('2030-01-01T00:00:00Z'),
  }));
}

const refundRows = (orderId: string) => h.db.selectFrom('refunds').selectAll().where('order_id', '=', orderId).execute();

describe('POST /v1/refunds', () => {
  it('refunds part of a paid order from its reserve: pending, signed for the payer, nothing to fund', async () => {
    const o = await paidOrder();
    const res = await refund({ order_id: o.id, amount: '1.50', reason: 'damaged', metadata: { ticket: 't_1' } });
    expect(res.status).toBe(201);
    const r = res.body;
    expect(r).toMatchObject({
      object: 'refund', order_id: o.id, amount: '1.50', state: 'pending', reason: 'damaged', metadata: { ticket: 't_1' },
      reserve_portion: '1500000', funding_required: '0', to: BUYER, pay_to: FAKE_ROUTER, tx_hash: null, completed_at: null,
    });
    expect(r.id).toMatch(/^re_/);
    expect(r.eip712.primary_type).toBe('RefundOrder');
    expect(r.eip712.domain).toEqual({ name: 'Trisettle PaymentRouter', version: '1', chainId: 84532, verifyingContract: FAKE_ROUTER });
    expect(r.eip712.message).toMatchObject({ orderId: toBytes32Id(o.id), refundId: toBytes32Id(r.id), to: BUYER, amount: '1500000' });
    const deadline = Number(r.eip712.message.deadline);
    expect(deadline).toBe(new Date(r.deadline_at).getTime() / 1000);
    expect(deadline - Date.now() / 1000).toBeGreaterThan(7 * 86_400 - 60);
    expect(deadline - Date.now() / 1000).toBeLessThan(7 * 86_400 + 60);
    const recovered = await recoverTypedDataAddress({
      domain: { ...r.eip712.domain }, types: refundOrderTypes, primaryType: 'RefundOrder',
      message: refundOrderFromJson(r.eip712), signature: r.signature as Hex,
    });
    expect(recovered).toBe(signer);
    const got = await h.request('GET', `/v1/refunds/${r.id}`, { key: p.secretKey });
    expect(got.body).toEqual(r);
  });

  it('defaults to all that is left, and asks the submitter to fund what the reserve cannot cover', async () => {
    const o = await paidOrder();
    expect((await refund({ order_id: o.id, amount: '1.00' })).body.state).toBe('pending');
    const rest = await refund({ order_id: o.id });
    expect(rest.status).toBe(201);
    // 24.00 left; reserve 2.35 minus the 1.00 promised to the open refund = 1.35 from the reserve.
    expect(rest.body).toMatchObject({ amount: '24.00', state: 'requires_funding', reserve_portion: '1350000', funding_required: '22650000' });
    expect(rest.body.eip712.message.amount).toBe('24000000');
  });

  it('refuses a refund of an unpaid order with 409 invalid_state naming the states', async () => {
    const o = await order(h, p.secretKey, m.external_id);
    const res = await refund({ order_id: o.id, amount: '1.00' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'invalid_state', param: 'order_id' });
    expect(res.body.error.message).toContain('pending_payment');
    expect(res.body.error.message).toContain('confirmed or partially_refunded');
    expect(await refundRows(o.id)).toHaveLength(0);
  });

  it('refuses a refund larger than what is left with 422 amount_exceeds_refundable and writes nothing', async () => {
    const o = await paidOrder();
    const n = await h.count('refunds');
    const res = await refund({ order_id: o.id, amount: '25.01' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'amount_exceeds_refundable', param: 'amount' });
    expect(res.body.error.message).toContain('25.00 USDC left');
    expect((await refund({ order_id: o.id, amount: '20.00' })).status).toBe(201);
    const more = await refund({ order_id: o.id, amount: '5.01' });
    expect(more.body.error.code).toBe('amount_exceeds_refundable');
    expect(more.body.error.message).toContain('5.00 USDC left');
    expect(await h.count('refunds')).toBe(n + 1);
  });

  it('refuses when open refunds already hold everything, even with no amount given', async () => {
    const o = await paidOrder();
    expect((await refund({ order_id: o.id })).status).toBe(201);
    const res = await refund({ order_id: o.id });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('amount_exceeds_refundable');
  });

  it('never over-refunds under concurrency: 10 simultaneous requests for 30% each', async () => {
    const o = await paidOrder();
    const results = await Promise.all(Array.from({ length: 10 }, () => refund({ order_id: o.id, amount: '7.50' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 422)).toHaveLength(7);
    for (const r of results.filter((x) => x.status === 422)) expect(r.body.error.code).toBe('amount_exceeds_refundable');
    const rows = await refundRows(o.id);
    const held = rows.filter((r) => r.state !== 'failed').reduce((s, r) => s + r.amount, 0n);
    expect(held).toBeLessThanOrEqual(25_000_000n);
    expect(held).toBe(22_500_000n);
    // The reserve (2.35) is promised once, not three times.
    expect(rows.reduce((s, r) => s + r.reserve_portion, 0n)).toBe(2_350_000n);
  });

  it('offers no reserve while a settlement batch carries the order', async () => {
    const o = await paidOrder();
    await h.db.insertInto('settlements').values({ id: 'stl_test_inflight', chain_id: 84532, onchain_id: toBytes32Id('stl_test_inflight'), state: 'submitted', order_count: 1, total: 0n }).execute();
    await h.db.updateTable('orders').set({ settlement_id: 'stl_test_inflight' }).where('id', '=', o.id).execute();
    const res = await refund({ order_id: o.id, amount: '1.00' });
    expect(res.body).toMatchObject({ state: 'requires_funding', reserve_portion: '0', funding_required: '1000000' });
  });

  it('replays a refund creation by Idempotency-Key instead of refunding twice', async () => {
    const o = await paidOrder();
    const a = await refund({ order_id: o.id, amount: '2.00' }, p.secretKey, 'refund-idem-1');
    const b = await refund({ order_id: o.id, amount: '2.00' }, p.secretKey, 'refund-idem-1');
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    expect(await refundRows(o.id)).toHaveLength(1);
  });

  const cases: [string, Record<string, unknown>, string][] = [
    ['amount in exponent form', { amount: '1e3' }, 'amount'],
    ['amount zero', { amount: '0.00' }, 'amount'],
    ['amount with 7 decimals', { amount: '1.0000001' }, 'amount'],
    ['amount as a number', { amount: 1 }, 'amount'],
    ['negative amount', { amount: '-1.00' }, 'amount'],
    ['unknown field', { currency: 'USD' }, 'currency'],
    ['metadata not an object', { metadata: 'x' }, 'metadata'],
    ['metadata over 5 KB', { metadata: { blob: 'x'.repeat(5200) } }, 'metadata'],
    ['reason over 500 chars', { reason: 'r'.repeat(501) }, 'reason'],
  ];
  it.each(cases)('refuses %s with 422 validation_failed and writes nothing', async (_name, extra, param) => {
    const o = await paidOrder();
    const res = await refund({ order_id: o.id, ...extra });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', param });
    expect(await refundRows(o.id)).toHaveLength(0);
  });

  it('refuses a missing order_id with 422 and an unknown one with 404', async () => {
    expect((await refund({ amount: '1.00' })).body.error).toMatchObject({ code: 'validation_failed', param: 'order_id' });
    const res = await refund({ order_id: 'ord_nope' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('needs a secret key or session: publishable 403, none 401', async () => {
    const o = await paidOrder();
    expect((await refund({ order_id: o.id }, p.publishableKey)).body.error.code).toBe('secret_key_required');
    expect((await h.request('POST', '/v1/refunds', { body: { order_id: o.id } })).status).toBe(401);
    expect((await h.request('GET', '/v1/refunds')).status).toBe(401);
  });
});

describe('tenant isolation', () => {
  it("answers 404 for another platform's order and refund, and never lists them", async () => {
    const o = await paidOrder();
    const mine = await refund({ order_id: o.id, amount: '1.00' });
    const other = await h.platform();
    const res = await refund({ order_id: o.id, amount: '1.00' }, other.secretKey);
    expect(res.status).toBe(404);
    expect((await h.request('GET', `/v1/refunds/${mine.body.id}`, { key: other.secretKey })).status).toBe(404);
    expect((await h.request('GET', `/v1/refunds?order_id=${o.id}`, { key: other.secretKey })).body.data).toEqual([]);
    expect((await h.request('GET', '/v1/refunds', { key: other.secretKey })).body.data).toEqual([]);
    expect(await refundRows(o.id)).toHaveLength(1);
  });
});

describe('GET /v1/refunds', () => {
  it('lists newest first with order and state filters and cursor pagination', async () => {
    const q = await h.platform();
    const qm = await merchant(h, q.secretKey);
    const o1 = await paidOrder(q.secretKey, qm.external_id);
    const o2 = await paidOrder(q.secretKey, qm.external_id);
    const made = [];
    for (const [o, amount] of [[o1, '1.00'], [o1, '1.00'], [o2, '2.00'], [o2, '20.00']] as const) {
      made.push((await refund({ order_id: o.id, amount }, q.secretKey)).body);
    }
    const page1 = await h.request('GET', '/v1/refunds?limit=3', { key: q.secretKey });
    expect(page1.body).toMatchObject({ object: 'list', has_more: true });
    expect(page1.body.data.map((r: { id: string }) => r.id)).toEqual([made[3].id, made[2].id, made[1].id]);
    const page2 = await h.request('GET', `/v1/refunds?limit=3&cursor=${page1.body.next_cursor}`, { key: q.secretKey });
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.body.data.map((r: { id: string }) => r.id)).toEqual([made[0].id]);
    const byOrder = await h.request('GET', `/v1/refunds?order_id=${o1.id}`, { key: q.secretKey });
    expect(byOrder.body.data.map((r: { id: string }) => r.id)).toEqual([made[1].id, made[0].id]);
    const funding = await h.request('GET', '/v1/refunds?state=requires_funding', { key: q.secretKey });
    expect(funding.body.data.map((r: { id: string }) => r.id)).toEqual([made[3].id]);
  });

  it('refuses bad list queries', async () => {
    for (const qs of ['state=done', 'limit=0', 'limit=101', 'cursor=garbage', 'sort=asc']) {
      expect((await h.request('GET', `/v1/refunds?${qs}`, { key: p.secretKey })).status, qs).toBe(422);
    }
  });
});

describe('applyRefunded (indexer hook)', () => {
  it('completes the refund, moves the order to partially_refunded then refunded, and emits refund.completed', async () => {
    const o = await paidOrder();
    const first = (await refund({ order_id: o.id, amount: '2.00' })).body;
    await complete(first, 2_000_000n);
    const done = await h.request('GET', `/v1/refunds/${first.id}`, { key: p.secretKey });
    expect(done.body).toMatchObject({ state: 'completed', tx_hash: `0x${'cd'.repeat(32)}`, completed_at: '2030-01-01T00:00:00.000Z' });
    let ord = await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey });
    expect(ord.body).toMatchObject({ state: 'partially_refunded', refunded_amount: '2.00' });

    const rest = (await refund({ order_id: o.id })).body;
    expect(rest).toMatchObject({ amount: '23.00', reserve_portion: '350000', funding_required: '22650000' });
    await complete(rest, 350_000n);
    ord = await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey });
    expect(ord.body).toMatchObject({ state: 'refunded', refunded_amount: '25.00' });
    const row = await h.db.selectFrom('orders').select(['reserve_remaining']).where('id', '=', o.id).executeTakeFirstOrThrow();
    expect(row.reserve_remaining).toBe(0n);

    const events = await h.db.selectFrom('events').selectAll().where('platform_id', '=', p.platformId).where('type', '=', 'refund.completed').execute();
    const mineEvents = events.map((e) => (e.data as { object: Record<string, any> }).object).filter((x) => x.order_id === o.id);
    expect(mineEvents).toHaveLength(2);
    expect(mineEvents.find((x) => x.id === rest.id)).toMatchObject({
      object: 'refund', state: 'completed', amount: '23.00', order: { id: o.id, state: 'refunded', refunded_amount: '25.00', metadata: { cart: 'c_42' } },
    });
    const again = await refund({ order_id: o.id, amount: '0.01' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('refunded');
  });

  it('applying the same completion twice changes nothing', async () => {
    const o = await paidOrder();
    const r = (await refund({ order_id: o.id, amount: '3.00' })).body;
    await complete(r, 2_350_000n);
    await complete(r, 2_350_000n);
    const row = await h.db.selectFrom('orders').select(['refunded_amount', 'reserve_remaining', 'state']).where('id', '=', o.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ refunded_amount: 3_000_000n, reserve_remaining: 0n, state: 'partially_refunded' });
  });

  it('records an unknown refund as an alert and does not throw', async () => {
    const before = await h.count('chain_alerts');
    await h.db.transaction().execute((tx) => h.services.refunds.applyRefunded(tx, {
      chainId: 84532, orderOnchainId: toBytes32Id('ord_x'), refundOnchainId: toBytes32Id('re_unknown'), to: BUYER, amount: 1n,
      fromReserve: 1n, fromSubmitter: 0n, txHash: `0x${'ef'.repeat(32)}`, blockTime: new Date(),
    }));
    expect(await h.count('chain_alerts')).toBe(before + 1);
    const alert = await h.db.selectFrom('chain_alerts').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(alert.kind).toBe('unknown_refund');
  });
});
