import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let other: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };
const PAYER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TX = `0x${'ab'.repeat(32)}`;
const orders: Record<string, { id: string; order_no: string }> = {};

const list = (query: string, key = p.secretKey) => h.request('GET', `/v1/orders?${query}`, { key });
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((o) => o.id).sort();

beforeAll(async () => {
  h = await createHarness(fakeChain());
  p = await h.platform();
  other = await h.platform();
  m = await merchant(h, p.secretKey);
  const om = await merchant(h, other.secretKey);
  for (const [name, day] of [['jan', '2026-01-10'], ['feb', '2026-02-10'], ['mar', '2026-03-10']] as const) {
    orders[name] = await order(h, p.secretKey, m.external_id, { order_no: `SRCH-${name}` });
    await h.db.updateTable('orders').set({ created_at: new Date(`${day}T12:00:00Z`) }).where('id', '=', orders[name]!.id).execute();
  }
  // The February order was paid: the indexer stores the payer checksummed and the tx hash lower case.
  await h.db.updateTable('orders').set({ state: 'confirmed', paid_by: PAYER, tx_hash: TX, confirmed_at: new Date('2026-02-10T12:01:00Z') })
    .where('id', '=', orders.feb!.id).execute();
  // Another platform's order with the same order_no, payer and tx hash must never show up.
  const theirs = await order(h, other.secretKey, om.external_id, { order_no: 'SRCH-feb' });
  await h.db.updateTable('orders').set({ paid_by: PAYER, tx_hash: TX }).where('id', '=', theirs.id).execute();
});
afterAll(async () => { await h.close(); });

describe('GET /v1/orders search and filters', () => {
  it('finds an order by id, order_no, payer address (any case) and tx hash (any case), only on the own platform', async () => {
    for (const q of [orders.feb!.id, 'SRCH-feb', PAYER, PAYER.toLowerCase(), TX, TX.toUpperCase().replace('0X', '0x')]) {
      const res = await list(`q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      expect(ids(res), q).toEqual([orders.feb!.id]);
    }
    expect((await list('q=SRCH-nothing')).body.data).toEqual([]);
  });

  it('filters by created date range (from inclusive, to exclusive), alone or with state and search', async () => {
    expect(ids(await list('from=2026-02-01&to=2026-03-01'))).toEqual([orders.feb!.id]);
    expect(ids(await list('from=2026-02-10T12:00:00Z&to=2026-03-10T12:00:00Z'))).toEqual([orders.feb!.id]);
    expect(ids(await list('from=2026-01-01T00:00:00%2B02:00'))).toEqual([orders.jan!.id, orders.feb!.id, orders.mar!.id].sort());
    expect(ids(await list('to=2026-02-01'))).toEqual([orders.jan!.id]);
    expect(ids(await list('from=2026-01-01&to=2026-04-01&state=pending_payment'))).toEqual([orders.jan!.id, orders.mar!.id].sort());
    expect(ids(await list(`from=2026-03-01&q=${PAYER}`))).toEqual([]);
  });

  it('pages through a filtered list with the cursor', async () => {
    const first = await list('from=2026-01-01&to=2026-04-01&limit=2');
    expect(first.body).toMatchObject({ has_more: true });
    const second = await list(`from=2026-01-01&to=2026-04-01&limit=2&cursor=${first.body.next_cursor}`);
    expect([...ids(first), ...ids(second)].sort()).toEqual(Object.values(orders).map((o) => o.id).sort());
  });

  it.each([
    ['unknown filter', 'order_number=SRCH-feb', 'order_number'],
    ['inverted range', 'from=2026-03-01&to=2026-02-01', 'to'],
    ['empty range', 'from=2026-03-01&to=2026-03-01', 'to'],
    ['not a date', 'from=yesterday', 'from'],
    ['impossible date', 'to=2026-02-31T00:00:00Z', 'to'],
    ['date-time without a zone', 'from=2026-02-01T00:00:00', 'from'],
    ['unknown state', 'state=paid', 'state'],
    ['limit too high', 'limit=101', 'limit'],
    ['limit zero', 'limit=0', 'limit'],
    ['search too long', `q=${'x'.repeat(129)}`, 'q'],
  ])('%s is 422 validation_failed naming the parameter', async (_name, query, param) => {
    const res = await list(query);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', param });
  });
});
