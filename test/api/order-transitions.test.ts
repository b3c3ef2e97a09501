import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/lib/clock.js';
import type { OrderTransitioned } from '../../src/modules/orders/index.js';
import type { OrderPaidEvent } from '../../src/modules/orders/paid-event.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant } from '../helpers/factories.js';

/**
 * Orders publish every transition as one typed in-process event, inside the transaction that wrote it;
 * checkout follows it (the only writer of checkout_sessions and checkout.session.*). Times the service
 * stamps come from its injected clock, which these tests hold still and move.
 */
const T0 = Date.parse('2031-03-14T09:00:00.000Z');
const clock = manualClock(T0);
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };
const seen: { trigger: string; ids: string[]; from: string[] }[] = [];
let failExpiry = false;

beforeAll(async () => {
  h = await createHarness({ ...fakeChain(), clock });
  p = await h.platform();
  m = await merchant(h, p.secretKey);
  h.services.orderTransitions.subscribe((e: OrderTransitioned) => {
    seen.push({ trigger: e.trigger, ids: e.moved.map((x) => x.order.id), from: e.moved.map((x) => x.from) });
    if (failExpiry && e.trigger === 'expire') throw new Error('subscriber failed');
  });
});
afterAll(async () => { await h?.close(); });

let seq = 0;
const orderBody = () => ({ merchant_id: m.external_id, order_no: `ot_${++seq}`, chain_id: 84532, token: 'USDC', amount: '25.00' });
type Created = { id: string; eip712: { message: Record<string, string> } };
async function session(): Promise<{ id: string; order: Created }> {
  const s = await h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: orderBody() });
  expect(s.status).toBe(201);
  return { id: s.body.id, order: (await h.request('GET', `/v1/orders/${s.body.order_id}`, { key: p.secretKey })).body };
}
async function order(): Promise<Created> {
  const o = await h.request('POST', '/v1/orders', { key: p.secretKey, body: orderBody() });
  expect(o.status).toBe(201);
  return o.body;
}
const paid = (o: Created, n: number): OrderPaidEvent => {
  const msg = o.eip712.message;
  return {
    chainId: 84532, orderId: msg.orderId as Hex, payer: '0x976EA74026E726554dB657fA54763abd0C3a0aa9', merchant: msg.merchant as Hex,
    token: msg.token as Hex, amount: BigInt(msg.amount!), serviceFee: BigInt(msg.serviceFee!), platformFee: BigInt(msg.platformFee!),
    reserveHold: BigInt(msg.reserveHold!), platform: msg.platform as Hex, releaseAfter: BigInt(T0 / 1000 + 86_400),
    txHash: `0x${n.toString(16).padStart(64, '0')}`, blockNumber: BigInt(n), blockTime: new Date(T0),
  };
};
const sessionRow = (id: string) => h.db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const eventsAbout = async (type: string, id: string) =>
  (await h.db.selectFrom('events').select(['type', 'data']).where('type', '=', type).execute()).filter((e) => JSON.stringify(e.data).includes(id));

describe('order transitions as one in-process event', () => {
  it('confirms a batch in one event; checkout completes its sessions and reports each once, stamped by the clock', async () => {
    const [a, b, c] = [await session(), await order(), await session()];
    clock.set(T0 + 60_000);
    seen.length = 0;
    const confirmed = await h.db.transaction().execute((tx) => h.services.orders.applyPaidMany(tx, [paid(c.order, 1), paid(b, 2), paid(a.order, 3)]));
    expect(confirmed.map((o) => o.id)).toEqual([c.order.id, b.id, a.order.id]);
    expect(seen).toEqual([{ trigger: 'paid', ids: [c.order.id, b.id, a.order.id], from: ['pending_payment', 'pending_payment', 'pending_payment'] }]);
    for (const s of [a, c]) {
      const row = await sessionRow(s.id);
      expect(row.state).toBe('completed');
      expect(row.completed_at?.toISOString()).toBe(new Date(T0 + 60_000).toISOString());
      const events = await eventsAbout('checkout.session.completed', s.id);
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({ object: { id: s.id, state: 'completed', order_id: s.order.id, order: { state: 'confirmed' } } });
    }
    const rows = await h.db.selectFrom('orders').select(['confirmed_at']).where('id', 'in', confirmed.map((o) => o.id)).execute();
    expect(rows.map((o) => o.confirmed_at?.getTime())).toEqual([T0 + 60_000, T0 + 60_000, T0 + 60_000]);
    expect(await eventsAbout('checkout.session.completed', b.id)).toHaveLength(0);
    // The batched path builds order.confirmed in SQL: the body is the order as the API answers it.
    for (const id of [a.order.id, b.id, c.order.id]) {
      const [confirmedEvent] = (await eventsAbout('order.confirmed', id));
      const got = await h.request('GET', `/v1/orders/${id}`, { key: p.secretKey });
      expect(got.status).toBe(200);
      const { payment_method: _method, payer: _payer, ...plain } = got.body; // GET one's detail fields
      expect((typeof confirmedEvent!.data === 'string' ? JSON.parse(confirmedEvent!.data) : confirmedEvent!.data).object).toEqual(plain);
    }
  });

  it('a failing subscriber rolls the expiry back with everything written for it; the next sweep expires order and session', async () => {
    const s = await session();
    await h.db.updateTable('orders').set({ deadline_at: new Date(T0 - 1000) }).where('id', '=', s.order.id).execute();
    failExpiry = true;
    await expect(h.services.orders.expireDue(84532, new Date(T0))).rejects.toThrow('subscriber failed');
    failExpiry = false;
    expect((await h.request('GET', `/v1/orders/${s.order.id}`, { key: p.secretKey })).body.state).toBe('pending_payment');
    expect((await sessionRow(s.id)).state).toBe('open');
    expect(await eventsAbout('order.expired', s.order.id)).toHaveLength(0);
    expect(await h.services.orders.expireDue(84532, new Date(T0))).toBe(1);
    expect((await sessionRow(s.id)).state).toBe('expired');
    expect(await eventsAbout('checkout.session.expired', s.id)).toHaveLength(1);
    const expired = await h.db.selectFrom('orders').select(['state', 'expired_at']).where('id', '=', s.order.id).executeTakeFirstOrThrow();
    expect(expired.state).toBe('expired');
    expect(expired.expired_at?.getTime()).toBe(clock.ms());
  });

  it('a refused transition publishes nothing', async () => {
    const o = await order();
    const row = await h.db.selectFrom('orders').selectAll().where('id', '=', o.id).executeTakeFirstOrThrow();
    seen.length = 0;
    await expect(h.db.transaction().execute((tx) => h.services.orders.transition(tx, row, 'refund_full', {}))).rejects.toMatchObject({ code: 'invalid_state' });
    expect(seen).toEqual([]);
  });
});

describe('the injected clock', () => {
  it("stamps an operator's cancellation request with it", async () => {
    const o = await order();
    clock.set(T0 + 3_600_000);
    const res = await h.request('POST', `/_/orders/${o.id}/fail`, { key: ADMIN_TOKEN, body: { reason: 'fraud review' } });
    expect(res.status).toBe(202);
    expect(res.body.cancellation).toMatchObject({ state: 'pending', requested_at: new Date(T0 + 3_600_000).toISOString() });
  });

  it("the summary's last 24 hours and 14 days are the clock's", async () => {
    const q = await h.platform();
    const mq = await merchant(h, q.secretKey);
    const o = (await h.request('POST', '/v1/orders', { key: q.secretKey, body: { ...orderBody(), merchant_id: mq.external_id } })).body as Created;
    clock.set(T0 + 7_200_000);
    await h.db.transaction().execute((tx) => h.services.orders.applyPaid(tx, paid(o, 99)));
    const day = new Date(T0).toISOString().slice(0, 10);
    const now = (await h.request('GET', '/v1/orders/summary', { key: q.secretKey })).body;
    expect(now).toMatchObject({ confirmed: 1, gross_24h: '25.00' });
    expect(now.gross_daily.at(-1)).toEqual({ day, gross: '25.00', count: 1 });
    clock.advance(2 * 86_400_000);
    const later = (await h.request('GET', '/v1/orders/summary', { key: q.secretKey })).body;
    expect(later.gross_24h).toBe('0.00');
    expect(later.gross_daily.at(-3)).toEqual({ day, gross: '25.00', count: 1 });
  });
});
