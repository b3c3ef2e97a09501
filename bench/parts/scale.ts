/**
 * Flat at scale (issue 37): the same HTTP calls through the real service on two PostgreSQL databases of the same
 * run, a small one (10,000 orders) and a big one (--orders, 10 million by default), each seeded to a year's shape by
 * set-based SQL (SEED: one INSERT … SELECT per table), then p50/p99 of each call and the ratio big/small. Goal: every
 * p99 ratio <= 1.5. Also prints the seeding rate and the on-disk bytes per paid order (sizing, docs/operations.md).
 *
 * The year: orders spread evenly over 365 days (10M a year ≈ 27,400 a day, 0.32/s), 500 merchants; 3% never paid
 * (expired; pending in the last hour), 1% refunded in full, 2% in part, the rest confirmed; reserves (held 7 days)
 * released in settlements of 100 orders once their hold ended, as the settlement worker does every minute; per order
 * the events order.created, order.paid, order.confirmed (or order.expired) and refund.completed, each delivered once
 * to the platform's one endpoint (webhook_deliveries, succeeded), and one OrderPaid chain log per paid order. The
 * order rows carry the typed data, signature and metadata of a real order created through the API first (the
 * template), so their size is real; event bodies are the order row as JSON (to_jsonb), about the size of the API's
 * order object.
 *
 * A year under the storage policy (docs/operations.md): money records and chain logs of the whole year, events and
 * deliveries only in the weeks the retention pass keeps at EVENT_RETENTION_DAYS (its default, 30: whole weeks, so
 * from the Monday of the week 30 days ago), each week in its own partition as the pass creates them. A year of events
 * in one DEFAULT partition is a shape no deployment running the worker has.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { DB } from '../../src/db/schema.js';
import { encodeCursor } from '../../src/db/pagination.js';
import { balanceRepo } from '../../src/modules/balance/repo.js';
import { eventsRepo } from '../../src/modules/events/repo.js';
import { ordersRepo, PAID_AMOUNT_SQL } from '../../src/modules/orders/repo.js';
import { timelineRepo } from '../../src/modules/timelines/repo.js';
import { explainStatement, statementCapture } from '../lib/capture.js';
import { load, type LoadResult } from '../lib/load.js';
import { startService, type ServiceHandle } from '../lib/service.js';
import { loadAvg, log, round } from '../lib/util.js';

export const SMALL_ORDERS = 10_000;
const GOAL = 1.5;
const REQUESTS = 2000;
const WARMUP = 200;
const CONNECTIONS = 4;
/** Tables whose secondary indexes are dropped before the fill and built again after it (see seed()). */
const FILLED = ['orders', 'events', 'webhook_deliveries', 'refunds', 'settlements', 'settlement_items', 'chain_logs'];

const orderId = (g: number) => `ord_S${String(g).padStart(19, '0')}`;
/** EVENT_RETENTION_DAYS at its default (src/config.ts). */
const RETENTION_DAYS = 30;
/** The first instant the retention pass keeps: the Monday 00:00 UTC of the week holding now − retention. */
const KEPT_FROM = `(week_of(now() - interval '${RETENTION_DAYS} days')::timestamp at time zone 'UTC')`;

/** One INSERT … SELECT per table; $P the platform, $N the number of orders, $T the template order, $W the endpoint. */
export const SEED = (P: string, N: number, T: string, W: string) => [
  // The kept weeks' partitions, which the retention pass created one by one as the year went (modules/retention).
  ['partitions', `select week_partition(t.parent, t.key, m::date)
    from (values ('events', 'created_at'), ('webhook_deliveries', 'event_created_at'), ('webhook_attempts', 'attempted_at'), ('request_logs', 'created_at')) t(parent, key)
    cross join generate_series(week_of(now() - interval '${RETENTION_DAYS} days'), week_of(now()), interval '7 days') m`],
  ['merchants', `insert into merchants (id, platform_id, external_id, name, merchant_wallet, chain_id, reserve_bps)
    select 'mch_s' || g, '${P}', 'sext_' || g, 'Merchant ' || g, t.merchant_wallet, t.chain_id, 1000
    from generate_series(1, 500) g cross join (select * from orders where id = '${T}') t`],
  ['webhook_endpoints', `insert into webhook_endpoints (id, platform_id, url, subscribed_events, secret)
    values ('${W}', '${P}', 'https://hooks.example.com/trisettle', '["*"]', 'sealed-bench-secret')`],
  ['orders', `insert into orders (id, platform_id, merchant_id, merchant_external_id, order_no, chain_id, token, token_address, amount,
      service_fee_bps, platform_fee_bps, reserve_bps, service_fee, platform_fee, merchant_gross, reserve_hold, merchant_available,
      metadata, state, pay_to, onchain_id, merchant_wallet, platform_wallet, eip712, signature, deadline_at, created_at, updated_at,
      paid_by, tx_hash, block_number, paid_at, confirmed_at, reserve_release_at, refunded_amount, reserve_remaining, settlement_id)
    select 'ord_S' || lpad(g::text, 19, '0'), '${P}', 'mch_s' || (1 + g % 500), 'sext_' || (1 + g % 500), 'sno_' || g, t.chain_id, t.token, t.token_address,
      10000000, 100, 500, 1000, 100000, 500000, 9400000, 940000, 8460000,
      t.metadata, s.state, t.pay_to, '0x' || md5(g::text) || md5('x' || g), t.merchant_wallet, t.platform_wallet, t.eip712, t.signature,
      c.created + interval '1 hour', c.created, c.created + interval '10 minutes',
      case when s.paid then '0x976EA74026E726554dB657fA54763abd0C3a0aa9' end, case when s.paid then '0x' || md5('t' || g) || md5('u' || g) end,
      case when s.paid then g end, case when s.paid then c.created + interval '2 minutes' end, case when s.paid then c.created + interval '3 minutes' end,
      case when s.paid then c.created + interval '7 days 2 minutes' end, s.refunded,
      case when s.paid and s.state <> 'refunded' and not s.settled then 940000 - s.refunded else 0 end,
      case when s.settled then 'stl_S' || lpad((g / 100)::text, 19, '0') end
    from generate_series(1, ${N}) g
    cross join (select * from orders where id = '${T}') t
    cross join lateral (select now() - (${N} - g) * (${(365 * 86400) / N} * interval '1 second') as created) c
    cross join lateral (select case when g % 100 < 3 and c.created > now() - interval '1 hour' then 'pending_payment' when g % 100 < 3 then 'expired'
      when g % 100 = 3 then 'refunded' when g % 100 < 6 then 'partially_refunded' else 'confirmed' end as state) s0
    cross join lateral (select s0.state, s0.state not in ('pending_payment', 'expired') as paid,
      case s0.state when 'refunded' then 10000000 when 'partially_refunded' then 500000 else 0 end as refunded,
      s0.state in ('confirmed', 'partially_refunded') and c.created + interval '7 days 2 minutes' < now() - interval '1 minute' as settled) s`],
  ['refunds', `insert into refunds (id, platform_id, order_id, merchant_external_id, amount, state, reserve_portion, funding_required, onchain_id, to_address, pay_to,
      eip712, signature, deadline_at, tx_hash, created_at, completed_at)
    select 're_' || substr(o.id, 5), o.platform_id, o.id, o.merchant_external_id, o.refunded_amount, 'completed', least(o.refunded_amount, 940000), 0,
      '0x' || md5('r' || o.id) || md5('s' || o.id), o.paid_by, o.pay_to, o.eip712, o.signature, o.paid_at + interval '2 hours',
      '0x' || md5('rt' || o.id) || md5('ru' || o.id), o.paid_at + interval '30 minutes', o.paid_at + interval '1 hour'
    from orders o where o.platform_id = '${P}' and o.refunded_amount > 0`],
  ['settlements', `insert into settlements (id, chain_id, onchain_id, state, order_count, total, tx_hash, created_at, confirmed_at)
    select o.settlement_id, min(o.chain_id), '0x' || md5(o.settlement_id) || md5('b' || o.settlement_id), 'confirmed', count(*), sum(o.reserve_hold - least(o.refunded_amount, 940000)),
      '0x' || md5('st' || o.settlement_id) || md5('su' || o.settlement_id), max(o.reserve_release_at), max(o.reserve_release_at) + interval '1 hour'
    from orders o where o.platform_id = '${P}' and o.settlement_id is not null group by o.settlement_id`],
  ['settlement_items', `insert into settlement_items (settlement_id, order_id, platform_id, amount, released_amount, state)
    select settlement_id, id, platform_id, reserve_hold - least(refunded_amount, 940000), reserve_hold - least(refunded_amount, 940000), 'released'
    from orders where platform_id = '${P}' and settlement_id is not null`],
  // What the trigger on orders keeps (migration 038; triggers are off while seeding): the reserve held per merchant
  // and its earliest hold end.
  ['balance_reserves', `insert into balance_reserves (platform_id, merchant_id, chain_id, held, first_release_at)
    select platform_id, merchant_external_id, chain_id, sum(reserve_remaining), min(reserve_release_at) from orders
    where platform_id = '${P}' and reserve_remaining > 0 group by platform_id, merchant_external_id, chain_id`],
  // What the trigger on orders appends and the worker folds (migration 039): the platform's order counts and gross per
  // day and minute, folded (its deltas so far, the template order's, are replaced by the recount).
  ['order_counts', `with folded as (delete from order_count_deltas where platform_id = '${P}')
    insert into order_counts (platform_id, total, pending, confirmed)
    select platform_id, count(*), count(*) filter (where state = 'pending_payment'), count(*) filter (where confirmed_at is not null)
    from orders where platform_id = '${P}' group by platform_id
    on conflict (platform_id) do update set total = excluded.total, pending = excluded.pending, confirmed = excluded.confirmed`],
  ['order_gross_days', `insert into order_gross_days (platform_id, day, gross, paid)
    select platform_id, (confirmed_at at time zone 'UTC')::date, sum(${PAID_AMOUNT_SQL}), count(*)
    from orders where platform_id = '${P}' and confirmed_at is not null group by 1, 2
    on conflict (platform_id, day) do update set gross = excluded.gross, paid = excluded.paid`],
  ['order_gross_minutes', `insert into order_gross_minutes (platform_id, minute, gross, paid)
    select platform_id, date_trunc('minute', confirmed_at), sum(${PAID_AMOUNT_SQL}), count(*)
    from orders where platform_id = '${P}' and confirmed_at >= now() - interval '3 days' group by 1, 2
    on conflict (platform_id, minute) do update set gross = excluded.gross, paid = excluded.paid`],
  ['chain_logs', `insert into chain_logs (chain_id, tx_hash, log_index, block_number, block_hash, event_name, onchain_id, event_key)
    select chain_id, tx_hash, 1, block_number, '0x' || md5(id) || md5('h' || id), 'OrderPaid', onchain_id, 'OrderPaid:' || lower(onchain_id)
    from orders where platform_id = '${P}' and paid_at is not null and id like 'ord\\_S%'`],
  // The indexed chain time is the year's last instant (the orders statement's now(), its newest order): the settlement
  // worker's minute is then the only reserve past its hold, as in a running deployment, however long the seed took.
  ['chain_cursors', `insert into chain_cursors (chain_id, last_block, last_block_hash, last_block_time)
    select t.chain_id, ${N}, '0x', (select max(created_at) from orders where platform_id = '${P}') from orders t where t.id = '${T}'
    on conflict (chain_id) do update set last_block = excluded.last_block, last_block_time = excluded.last_block_time`],
  ['events', `insert into events (id, platform_id, type, data, created_at)
    select 'evt_' || e.k || substr(o.id, 6), o.platform_id, e.type, b.body, e.at
    from orders o cross join lateral (select jsonb_build_object('object', to_jsonb(o) - 'eip712' - 'signature') as body offset 0) b
    cross join lateral (values ('c', 'order.created', o.created_at), ('p', 'order.paid', o.paid_at), ('f', 'order.confirmed', o.confirmed_at),
      ('x', 'order.expired', case when o.state = 'expired' then o.deadline_at end)) e(k, type, at)
    where o.platform_id = '${P}' and o.id like 'ord\\_S%' and o.created_at >= ${KEPT_FROM} - interval '1 day' and e.at >= ${KEPT_FROM}
    union all
    select 'evt_r' || substr(r.id, 5), r.platform_id, 'refund.completed', jsonb_build_object('object', to_jsonb(r) - 'eip712' - 'signature'), r.completed_at
    from refunds r where r.platform_id = '${P}' and r.completed_at >= ${KEPT_FROM}`],
  ['webhook_deliveries', `insert into webhook_deliveries (id, event_id, event_created_at, endpoint_id, platform_id, state, attempts, next_attempt_at, last_status, delivered_at, created_at)
    select 'dlv_' || substr(e.id, 5), e.id, e.created_at, '${W}', e.platform_id, 'succeeded', 1, e.created_at, 200, e.created_at + interval '1 second', e.created_at
    from events e where e.platform_id = '${P}' and e.id like 'evt\\_%'`],
] as const;

type Seeded = { orders: number; rows: number; seconds: number; rows_per_s: number; phases: Record<string, number>; indexes_rebuilt: number };

/**
 * Fills the service's database. FK checks and triggers are off for the session (session_replication_role = replica:
 * the rows are consistent by construction; refunds' merchant_external_id, which a trigger fills, is set here), and the
 * secondary indexes of the filled tables are dropped first and built again after (bulk loading into ~20 live indexes
 * per order is several times slower); primary keys and unique constraints stay. Then VACUUM ANALYZE.
 */
async function seed(svc: ServiceHandle, n: number, template: string): Promise<Seeded> {
  const c = new pg.Client({ connectionString: svc.url });
  await c.connect();
  try {
    await c.query(`set session_replication_role = replica; set maintenance_work_mem = '1GB'; set max_parallel_maintenance_workers = 2`);
    const phases: Record<string, number> = {};
    const t0 = performance.now();
    const idx = (await c.query(`select i.indexname, i.indexdef from pg_indexes i where i.schemaname = 'public' and i.tablename = any($1)
      and not exists (select 1 from pg_constraint k where k.conname = i.indexname)`, [FILLED])).rows as { indexname: string; indexdef: string }[];
    for (const i of idx) await c.query(`drop index ${i.indexname}`);
    let rows = 0;
    for (const [table, text] of SEED(svc.platformId, n, template, `we_S${svc.platformId.slice(4)}`)) {
      const t = performance.now();
      const r = await c.query(text);
      rows += r.rowCount ?? 0;
      phases[table] = round((performance.now() - t) / 1000, 1)!;
      log(`  ${table}: ${r.rowCount} rows in ${phases[table]} s`);
    }
    let t = performance.now();
    // A partitioned table's index reads `ON ONLY` in pg_indexes: built that way it is the parent's alone, INVALID and
    // without the partitions' indexes (dropping it dropped theirs), so it is built again over every partition.
    for (const i of idx) await c.query(i.indexdef.replace(' ON ONLY ', ' ON '));
    phases.indexes = round((performance.now() - t) / 1000, 1)!;
    log(`  ${idx.length} secondary indexes built again in ${phases.indexes} s`);
    t = performance.now();
    await c.query('vacuum analyze');
    phases.vacuum_analyze = round((performance.now() - t) / 1000, 1)!;
    const seconds = round((performance.now() - t0) / 1000, 1)!;
    return { orders: n, rows, seconds, rows_per_s: Math.round(rows / seconds), phases, indexes_rebuilt: idx.length };
  } finally {
    await c.end();
  }
}

async function sizes(svc: ServiceHandle) {
  const c = new pg.Client({ connectionString: svc.url });
  await c.connect();
  try {
    const paid = Number((await c.query(`select count(*) from orders where paid_at is not null`)).rows[0].count);
    const tables = (await c.query(`select c.relname as table, pg_total_relation_size(c.oid)::bigint as bytes, pg_indexes_size(c.oid)::bigint as index_bytes
      from pg_class c join pg_namespace s on s.oid = c.relnamespace where s.nspname = 'public' and c.relkind = 'r' order by 2 desc`)).rows
      .map((r) => ({ table: r.table as string, bytes: Number(r.bytes), index_bytes: Number(r.index_bytes) }));
    const total = tables.reduce((s, t) => s + t.bytes, 0);
    return {
      paid_orders: paid, total_bytes: total, bytes_per_paid_order: Math.round(total / paid),
      tables: tables.slice(0, 8).map((t) => ({ ...t, bytes_per_paid_order: Math.round(t.bytes / paid) })),
    };
  } finally {
    await c.end();
  }
}

type Call = { name: string; method?: 'POST'; path: (n: number) => () => string; body?: (svc: ServiceHandle) => string };

let seq = 0;
const runTag = Date.now().toString(36);
const day = 86_400_000;

/** The calls, each a path maker given the database's order count (random ids over the seeded ones). */
function calls(): Call[] {
  const random = (n: number) => () => 1 + Math.floor(Math.random() * n);
  const fixed = (p: string) => () => () => p;
  const range = () => {
    const from = new Date(Math.floor((Date.now() - 200 * day) / day) * day);
    return `from=${from.toISOString()}&to=${new Date(from.getTime() + day).toISOString()}`;
  };
  return [
    { name: 'create order', method: 'POST', path: fixed('/v1/orders'),
      body: (svc) => JSON.stringify({ merchant_id: svc.merchantId, order_no: `sc_${runTag}_${++seq}`, chain_id: 84532, token: 'USDC', amount: '25.00' }) },
    { name: 'get order (random)', path: (n) => { const g = random(n); return () => `/v1/orders/${orderId(g())}`; } },
    { name: 'list orders, first page', path: fixed('/v1/orders') },
    { name: 'list orders, state=refunded', path: fixed('/v1/orders?state=refunded') },
    { name: 'list orders, one merchant', path: fixed('/v1/orders?merchant_id=sext_7') },
    { name: 'list orders, one day 200 days ago', path: () => { const q = range(); return () => `/v1/orders?${q}`; } },
    // The cursor as the API encodes it (encodeCursor), at the middle of the seeded year: the stored row of order n/2.
    { name: 'list orders, deep cursor (mid-year)', path: (n) => () => `/v1/orders?cursor=${cursors.get(n)}` },
    { name: 'list events, first page', path: fixed('/v1/events') },
    { name: 'timeline (random order)', path: (n) => { const g = random(n); return () => `/v1/orders/${orderId(g())}/timeline`; } },
    { name: 'balance', path: fixed('/v1/balance') },
    { name: 'orders summary', path: fixed('/v1/orders/summary') },
  ];
}
/** The exact mid-year cursor of each database (read from the database, so it names a stored row). */
const cursors = new Map<number, string>();

async function measure(svc: ServiceHandle, call: Call, n: number): Promise<LoadResult> {
  const base = `http://127.0.0.1:${svc.port}`;
  const path = call.path(n);
  const spec = {
    url: `${base}${path()}`, path, method: call.method ?? 'GET' as const, connections: CONNECTIONS,
    headers: { authorization: `Bearer ${svc.secretKey}`, ...(call.body ? { 'content-type': 'application/json' } : {}) },
    ...(call.body ? { body: () => call.body!(svc) } : {}),
  };
  await load({ ...spec, amount: WARMUP });
  const r = await load({ ...spec, amount: REQUESTS });
  if (r.ok < REQUESTS) throw new Error(`${call.name} on ${n} orders: ${r.non_2xx} non-2xx, ${r.errors} errors`);
  return r;
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statements behind the calls, on the big database (what a missed goal is read
 * from): each is the repository's own statement, captured (bench/lib/capture.ts), with the parameters a call passes.
 */
async function explain(svc: ServiceHandle, n: number) {
  const c = new pg.Client({ connectionString: svc.url });
  await c.connect();
  const dry = statementCapture();
  const P = svc.platformId;
  const o = (await c.query(`select id, onchain_id from orders where id = $1`, [orderId(Math.ceil(n / 3))])).rows[0];
  const mid = (await c.query(`select id, created_at from orders where id = $1`, [orderId(Math.floor(n / 2))])).rows[0];
  // A value, as getBalance passes it (read in its snapshot: balance_closings).
  const closedUntil: Date = (await c.query(`select closed_until from balance_closings where platform_id = $1`, [P])).rows[0]?.closed_until ?? new Date(0);
  const from = new Date(Math.floor((Date.now() - 200 * day) / day) * day);
  const specs: [string, (d: Kysely<DB>) => Promise<unknown>][] = [
    ['get order', (d) => ordersRepo.findById(d, P, o.id)],
    ['list first page', (d) => ordersRepo.list(d, P, {}, 20, null)],
    ['list state=refunded', (d) => ordersRepo.list(d, P, { state: 'refunded' }, 20, null)],
    ['list one merchant', (d) => ordersRepo.list(d, P, { merchantExternalId: 'sext_7' }, 20, null)],
    ['list one day 200 days ago', (d) => ordersRepo.list(d, P, { from, to: new Date(from.getTime() + day) }, 20, null)],
    ['list deep cursor', (d) => ordersRepo.list(d, P, {}, 20, { createdAt: mid.created_at, id: mid.id })],
    ['list events', (d) => eventsRepo.list(d, P, { limit: 20, cursor: null })],
    ['timeline: events about', (d) => timelineRepo.eventsAbout(d, P, [o.id])],
    ['timeline: chain logs', (d) => timelineRepo.chainLogs(d, [o.onchain_id])],
    ['timeline: settlements', (d) => timelineRepo.settlementsOfOrders(d, [o.id])],
    ['balance: closed sums and reserves per merchant', (d) => balanceRepo.balanceParts(d, P, closedUntil)],
    ['summary: counts', (d) => ordersRepo.counts(d, P)],
    ['summary: gross 24 h', (d) => ordersRepo.grossSince(d, P, new Date(Date.now() - day))],
    ['summary: gross per day, 14 days', (d) => ordersRepo.grossDaily(d, P, new Date(Math.floor((Date.now() - 13 * day) / day) * day))],
  ];
  const out = [];
  try {
    for (const [name, fn] of specs) {
      const e = await explainStatement(c, await dry.capture(fn));
      out.push({ name, ...e });
      log(`  explain ${name}: ${e.indexes.join(', ') || 'no index'}${e.seq_scans.length ? ` SEQ SCAN ${e.seq_scans.join(', ')}` : ''} ${e.execution_ms} ms`);
    }
  } finally {
    await dry.destroy();
    await c.end();
  }
  return out;
}

/**
 * A chain node that knows no transaction and answers at once: GET /v1/orders/{id} of a paid order asks the node for
 * its paying transaction (payment_method, timelines/payment-method.ts). Against the fake chain's closed port viem's
 * retries made that read ~0.5 s on both databases, hiding the database's part; a real node answers in milliseconds.
 */
async function nullNode(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const msg = JSON.parse(body);
      const answer = (m: { id: number }) => ({ jsonrpc: '2.0', id: m.id, result: null });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(msg) ? msg.map(answer) : answer(msg)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

export async function benchScale(o: { orders: number }) {
  const sizesOf = [SMALL_ORDERS, o.orders];
  const services: ServiceHandle[] = [];
  const node = await nullNode();
  const rpc = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  try {
    const seeded: Seeded[] = [];
    for (const n of sizesOf) {
      log(`scale: a PostgreSQL database with ${n.toLocaleString('en')} orders`);
      const svc = await startService('postgres', { BENCH_RPC_URL: rpc });
      services.push(svc);
      // The template: a real order through the API, whose typed data, signature and metadata every seeded order copies.
      const res = await fetch(`http://127.0.0.1:${svc.port}/v1/orders`, {
        method: 'POST', headers: { authorization: `Bearer ${svc.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ merchant_id: svc.merchantId, order_no: `template_${runTag}`, chain_id: 84532, token: 'USDC', amount: '10.00', metadata: { sku: 'plan-pro', customer: 'cus_4f9a2c' } }),
      });
      if (res.status !== 201) throw new Error(`template order: ${res.status} ${await res.text()}`);
      const template = ((await res.json()) as { id: string }).id;
      const s = await seed(svc, n, template);
      log(`  seeded ${s.rows.toLocaleString('en')} rows in ${s.seconds} s: ${s.rows_per_s.toLocaleString('en')} rows/s`);
      seeded.push(s);
      const c = new pg.Client({ connectionString: svc.url });
      await c.connect();
      const mid = (await c.query(`select id, created_at from orders where id = $1`, [orderId(Math.floor(n / 2))])).rows[0];
      await c.end();
      cursors.set(n, encodeCursor({ created_at: mid.created_at, id: mid.id }));
      const t = performance.now();
      await svc.call('closeBalances');
      log(`  the balance-closings worker's first pass: ${round((performance.now() - t) / 1000, 1)} s`);
    }
    const size = await sizes(services[1]!);
    log(`scale: ${size.bytes_per_paid_order} bytes on disk per paid order (${round(size.total_bytes / 2 ** 30, 2)} GiB / ${size.paid_orders} paid orders)`);
    const rows = [];
    for (const call of calls()) {
      // Small then big for each call, so a change in the machine's load falls on both sides of the ratio.
      const [small, big] = [services[0]!, services[1]!];
      const rs = await measure(small, call, sizesOf[0]!);
      const rb = await measure(big, call, sizesOf[1]!);
      const p99Ratio = rs.p99_ms && rb.p99_ms ? round(rb.p99_ms / rs.p99_ms, 2) : null;
      const p50Ratio = rs.p50_ms && rb.p50_ms ? round(rb.p50_ms / rs.p50_ms, 2) : null;
      rows.push({ call: call.name, small: rs, big: rb, p50_ratio: p50Ratio, p99_ratio: p99Ratio, meets_goal: p99Ratio !== null && p99Ratio <= GOAL, load: loadAvg()[0] });
      log(`  ${call.name}: small p50 ${rs.p50_ms} p99 ${rs.p99_ms} | big p50 ${rb.p50_ms} p99 ${rb.p99_ms} | p99 ratio ${p99Ratio}${p99Ratio !== null && p99Ratio <= GOAL ? '' : '  MISSES the goal'} (load ${loadAvg()[0]})`);
    }
    const plans = await explain(services[1]!, sizesOf[1]!);
    return {
      orders: { small: sizesOf[0], big: sizesOf[1] }, rate_per_day: { small: Math.round(sizesOf[0]! / 365), big: Math.round(sizesOf[1]! / 365) },
      goal_p99_ratio: GOAL, requests: REQUESTS, connections: CONNECTIONS, seeding: { small: seeded[0], big: seeded[1] }, size, rows, explain: plans,
    };
  } finally {
    for (const s of services) await s.stop().catch(() => {});
    node.close();
  }
}
