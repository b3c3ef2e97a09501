/**
 * Balances at scale (issue 18): GET /v1/balance, /v1/balance_transactions and net volume p50/p99 on PostgreSQL with
 * 100k paid orders of one platform (90 days, 10k refunds, ~89k reserves released in ~890 batches, 100k chain_logs),
 * EXPLAIN (ANALYZE, BUFFERS) of each query, and CSV exports of 100k+ rows streamed with the peak RSS growth sampled
 * while the body is read. Requests go through the app in process (auth, validation, serialization included).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Kysely, DummyDriver, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { encodeCursor } from '../../src/db/pagination.js';
import type { DB } from '../../src/db/schema.js';
import { createLogger } from '../../src/lib/logger.js';
import { balanceRepo } from '../../src/modules/balance/repo.js';
import { BALANCE_TRANSACTION_TYPES } from '../../src/modules/balance/schemas.js';
import { createHarness, type Harness } from '../../test/helpers/harness.js';
import { freshLocation, openLocation } from '../lib/db.js';
import { loadAvg, log, percentile, round, rssMiB, rssSampler, sleep } from '../lib/util.js';

const N = 100_000;
export const FILL = (p: string) => `
update platforms set rate_limit_per_second = 100000, rate_limit_burst = 100000 where id = '${p}'; -- the bench measures latency, not the limiter
insert into merchants (id, platform_id, external_id, name, merchant_wallet, chain_id, reserve_bps)
select 'mch_b' || g, '${p}', 'bext_' || g, 'Merchant ' || g, '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', 84532, 1000 from generate_series(1, 500) g;

insert into orders (id, platform_id, merchant_id, merchant_external_id, order_no, chain_id, token, token_address, amount,
  service_fee_bps, platform_fee_bps, reserve_bps, service_fee, platform_fee, merchant_gross, reserve_hold, merchant_available,
  metadata, state, pay_to, onchain_id, merchant_wallet, platform_wallet, eip712, signature, deadline_at, created_at,
  paid_by, tx_hash, block_number, paid_at, confirmed_at, reserve_release_at, refunded_amount, reserve_remaining, settlement_id)
select 'ord_b' || lpad(g::text, 17, '0'), '${p}', 'mch_b' || (1 + g % 500), 'bext_' || (1 + g % 500), 'bno_' || g, 84532,
  'USDC', '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', 10000000, 100, 500, 1000, 100000, 500000, 9400000, 940000, 8460000,
  '{"sku":"a,b"}', case when g % 10 = 0 then 'partially_refunded' else 'confirmed' end, '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  '0x' || md5(g::text) || md5('x' || g), '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', '0x90F79bf6EB2c4f870365E785982E1f101E93b906', '{}', '0x',
  c.paid + interval '1 hour', c.paid - interval '1 minute',
  '0x976EA74026E726554dB657fA54763abd0C3a0aa9', '0x' || md5('t' || g) || md5('u' || g), g, c.paid, c.paid, c.paid + interval '7 days',
  case when g % 10 = 0 then 500000 else 0 end,
  case when c.paid > now() - interval '8 days' then 940000 - case when g % 10 = 0 then 500000 else 0 end else 0 end,
  case when c.paid > now() - interval '8 days' then null else 'stl_' || lpad((g / 100)::text, 20, '0') end
from generate_series(1, ${N}) g cross join lateral (select now() - ((${N} - g) * interval '77.76 seconds') as paid) c;

insert into refunds (id, platform_id, order_id, amount, state, reserve_portion, funding_required, onchain_id, to_address, pay_to, eip712, signature,
  deadline_at, tx_hash, created_at, completed_at)
select 're_' || lpad(substr(o.id, 5), 20, '0'), o.platform_id, o.id, 500000, 'completed', 500000, 0, '0x' || md5('r' || o.id) || md5('s' || o.id),
  o.paid_by, o.pay_to, '{}', '0x', o.paid_at + interval '2 hours', '0x' || md5('rt' || o.id) || md5('ru' || o.id), o.paid_at + interval '30 minutes', o.paid_at + interval '1 hour'
from orders o where o.platform_id = '${p}' and o.refunded_amount > 0;

insert into settlements (id, chain_id, onchain_id, state, order_count, total, tx_hash, created_at, confirmed_at)
select o.settlement_id, 84532, '0x' || md5(o.settlement_id) || md5('b' || o.settlement_id), 'confirmed', count(*), sum(o.reserve_hold - o.refunded_amount),
  '0x' || md5('st' || o.settlement_id) || md5('su' || o.settlement_id), max(o.reserve_release_at), max(o.reserve_release_at) + interval '1 hour'
from orders o where o.settlement_id is not null group by o.settlement_id;

insert into settlement_items (settlement_id, order_id, platform_id, amount, released_amount, state)
select settlement_id, id, platform_id, reserve_hold - refunded_amount, reserve_hold - refunded_amount, 'released' from orders where settlement_id is not null;

insert into chain_logs (chain_id, tx_hash, log_index, block_number, block_hash, event_name, onchain_id, event_key)
select 84532, tx_hash, 1, block_number, '0x' || md5(id), 'OrderPaid', onchain_id, 'OrderPaid:' || lower(onchain_id) from orders where paid_at is not null;

insert into chain_cursors (chain_id, last_block, last_block_hash, last_block_time) values (84532, ${N}, '0x', now())
  on conflict (chain_id) do update set last_block_time = now();
`;

type Timing = { name: string; path: string; n: number; p50_ms: number | null; p99_ms: number | null; max_ms: number | null };
type Explained = { name: string; indexes: string[]; seq_scans: string[]; execution_ms: number | null; plan: string };

async function timeRequests(h: Harness, key: string, name: string, path: string, n = 300): Promise<Timing> {
  for (let i = 0; i < 20; i++) await h.request('GET', path, { key });
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await h.request('GET', path, { key });
    samples.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text.slice(0, 200)}`);
  }
  const r = { name, path, n, p50_ms: round(percentile(samples, 50), 2), p99_ms: round(percentile(samples, 99), 2), max_ms: round(Math.max(...samples), 2), load: loadAvg()[0] };
  log(`  ${name}: p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms (load ${r.load})`);
  return r;
}

/**
 * The service in a child process of its own (the app over HTTP on the filled database), so the memory measured is
 * the server's alone: its RSS is sampled every 20 ms while a CSV export is read to the end over HTTP.
 */
type ExportServer = { port: number; pid: number; mem(): Promise<Record<string, number>>; stop(): void };

/** The node flags `npm start` runs the service with (package.json), so the bench measures the production heap policy. */
export function startFlags(): string[] {
  const start = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')).scripts.start as string;
  return /\bnode ((?:--\S+ )*)--import tsx src\/main\.ts/.exec(start)?.[1]?.trim().split(' ') ?? [];
}

export async function startExportServer(url: string, execArgv: string[] = startFlags()): Promise<ExportServer> {
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: [...execArgv, '--import', 'tsx'], env: { ...process.env, BALANCE_EXPORT_CHILD: url }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: any) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`export server exited (${code})`)));
  });
  const mem = () => new Promise<Record<string, number>>((resolve) => { child.once('message', (m: any) => resolve(m.mem)); child.send('mem'); });
  return { port, pid: child.pid!, mem, stop: () => child.kill('SIGTERM') };
}

export async function streamExport(srv: ExportServer, key: string, path: string) {
  await fetch(`http://127.0.0.1:${srv.port}/v1/exports/orders.csv?from=2100-01-01T00:00:00Z`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.text());
  await sleep(500);
  const base = rssMiB(srv.pid)!;
  const heapBefore = await srv.mem();
  const sampler = rssSampler(srv.pid, 20);
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${srv.port}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const reader = res.body!.getReader();
  let bytes = 0;
  let rows = -1; // the header
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.length;
    for (const b of value) if (b === 10) rows++;
  }
  const peak = sampler.stop();
  const heap = await srv.mem();
  const r = { path, rows, mib: round(bytes / 2 ** 20, 1), seconds: round((performance.now() - t) / 1000, 1), rss_before_mib: base, rss_peak_mib: peak, rss_growth_mib: round(peak - base, 1), heap_before: heapBefore, heap_peak: heap, load: loadAvg()[0] };
  log(`  export ${path}: ${rows} rows, ${r.mib} MiB in ${r.seconds} s; server RSS ${base} → peak ${peak} MiB (+${r.rss_growth_mib}), V8 heap total ${heapBefore.heap_total_mib} → peak ${heap.heap_total_mib} MiB (load ${r.load})`);
  return r;
}

async function explainAll(client: pg.Client, P: string, cursor: { time: Date; id: string }): Promise<Explained[]> {
  const closed = (await client.query(`select closed_until from balance_closings where platform_id = $1`, [P])).rows[0].closed_until as Date;
  const captured: CompiledQuery[] = [];
  const dry = new Kysely<DB>({
    dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (d) => new PostgresIntrospector(d), createQueryCompiler: () => new PostgresQueryCompiler() },
    log: (e) => { if (e.level === 'query') captured.push(e.query); },
  });
  const page = { platformId: P, types: BALANCE_TRANSACTION_TYPES, limit: 21, serviceTreasury: '0x' + '7'.repeat(40) };
  const specs: [string, () => Promise<unknown>][] = [
    ['balance: closed sums + since the closing + reserves (platform)', () => balanceRepo.balanceParts(dry, P, closed)],
    ['balance: the same for one merchant', () => balanceRepo.balanceParts(dry, P, closed, 'bext_7')],
    ['ledger: first page', () => balanceRepo.ledgerPage(dry, page)],
    ['ledger: page 10k rows deep', () => balanceRepo.ledgerPage(dry, { ...page, before: cursor })],
    ['ledger: type reserve_release', () => balanceRepo.ledgerPage(dry, { ...page, types: ['reserve_release'] })],
    ['ledger: one merchant', () => balanceRepo.ledgerPage(dry, { ...page, merchantId: 'bext_7' })],
    ['net volume 90 days', () => balanceRepo.days(dry, P, new Date(Date.now() - 90 * 86_400_000), closed)],
  ];
  const out: Explained[] = [];
  for (const [name, fn] of specs) {
    captured.length = 0;
    await fn().catch(() => {});
    const q = captured.at(-1);
    if (!q) throw new Error(`explain: nothing captured for ${name}`);
    const res = await client.query(`explain (analyze, buffers) ${q.sql}`, q.parameters as unknown[]);
    const plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
    const indexes = [...new Set([...plan.matchAll(/(?:Index(?: Only)? Scan(?: Backward)? using|Bitmap Index Scan on) (\S+)/g)].map((m) => m[1]!))];
    const seq = [...new Set([...plan.matchAll(/Seq Scan on (\S+)/g)].map((m) => m[1]!))];
    const ms = /Execution Time: ([\d.]+) ms/.exec(plan);
    out.push({ name, indexes, seq_scans: seq, execution_ms: ms ? Number(ms[1]) : null, plan });
    log(`  ${name}: ${indexes.join(', ') || 'no index'}${seq.length ? ` (seq scan: ${seq.join(', ')})` : ''} ${ms?.[1]} ms`);
  }
  await dry.destroy();
  return out;
}

export async function benchBalance(opts: { explainPlans?: boolean } = {}) {
  log('balance: filling a PostgreSQL database with 100k paid orders');
  const loc = await freshLocation('postgres');
  const h = await createHarness({ database: openLocation(loc), logger: createLogger('silent', 'devnet') });
  const client = new pg.Client({ connectionString: loc.url });
  try {
    const p = await h.platform();
    await client.connect();
    const t = performance.now();
    await client.query(FILL(p.platformId));
    await client.query('vacuum analyze'); // a multi-statement query runs as one transaction; VACUUM cannot
    log(`  filled in ${round((performance.now() - t) / 1000, 1)} s`);
    const deep = (await client.query(`select paid_at, id from orders where platform_id = $1 order by paid_at desc, id desc offset 2500 limit 1`, [p.platformId])).rows[0];
    const cursor = { time: deep.paid_at as Date, id: `btx_${(deep.id as string).slice(4)}sf` };
    const key = p.secretKey;
    // A read before any closing sums the whole history; then the closing worker's first pass closes it (balance_closed_*),
    // after which it adds one day's worth per day.
    const unclosed = await timeRequests(h, key, 'balance (platform, before the first closing)', '/v1/balance', 30);
    const t0 = performance.now();
    await h.services.balance.closeAll();
    const firstClosingMs = round(performance.now() - t0, 1);
    log(`  the closing worker's first pass (closes 100k orders of history): ${firstClosingMs} ms`);
    const timings = [
      unclosed,
      await timeRequests(h, key, 'balance (platform, 500 merchants)', '/v1/balance'),
      await timeRequests(h, key, 'balance (one merchant)', '/v1/balance?merchant_id=bext_7'),
      await timeRequests(h, key, 'balance_transactions (first page, 20)', '/v1/balance_transactions'),
      await timeRequests(h, key, 'balance_transactions (100)', '/v1/balance_transactions?limit=100'),
      await timeRequests(h, key, 'balance_transactions (~10k rows deep)', `/v1/balance_transactions?cursor=${encodeCursor({ created_at: cursor.time, id: cursor.id })}`),
      await timeRequests(h, key, 'balance_transactions (type reserve_release)', '/v1/balance_transactions?type=reserve_release'),
      await timeRequests(h, key, 'balance_transactions (one merchant)', '/v1/balance_transactions?merchant_id=bext_7'),
      await timeRequests(h, key, 'net volume (90 days)', '/v1/balance/net_volume?days=90', 100),
    ];
    const explain = await explainAll(client, p.platformId, cursor);
    const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
    log(`  export server: node ${startFlags().join(' ')} (as npm start)`);
    const srv = await startExportServer(loc.url!);
    let exports;
    try {
      exports = [
        await streamExport(srv, key, '/v1/exports/orders.csv'),
        await streamExport(srv, key, `/v1/exports/balance_transactions.csv?from=${encodeURIComponent(since)}`),
        await streamExport(srv, key, '/v1/exports/orders.csv'),
      ];
    } finally {
      srv.stop();
    }
    const rows = (await client.query(`select (select count(*) from orders)::int as orders, (select count(*) from refunds)::int as refunds,
      (select count(*) from settlement_items)::int as settlement_items, (select count(*) from settlements)::int as settlements`)).rows[0];
    return { rows, first_balance_with_closing_ms: firstClosingMs, timings, export_server_flags: startFlags(), exports, explain: opts.explainPlans === false ? explain.map(({ plan: _p, ...e }) => e) : explain };
  } finally {
    await client.end().catch(() => {});
    await h.close();
    await loc.dispose();
  }
}

// The export server child (see startExportServer): the real app over HTTP on the bench's database.
if (process.env.BALANCE_EXPORT_CHILD) {
  const { openPostgres } = await import('../../src/db/client.js');
  const h = await createHarness({ database: openPostgres(process.env.BALANCE_EXPORT_CHILD), logger: createLogger('silent', 'devnet') });
  const server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.send!({ port: info.port }));
  // Peaks of the V8 heap and of memory outside it (Buffers) since the last ask: tells heap sizing from buffered bytes.
  const zero = () => ({ heap_total_mib: 0, heap_used_mib: 0, external_mib: 0 });
  let peak = zero();
  const mib = (b: number) => Math.round(b / 2 ** 17) / 8;
  setInterval(() => {
    const m = process.memoryUsage();
    peak = { heap_total_mib: Math.max(peak.heap_total_mib, mib(m.heapTotal)), heap_used_mib: Math.max(peak.heap_used_mib, mib(m.heapUsed)), external_mib: Math.max(peak.external_mib, mib(m.external)) };
  }, 20).unref();
  process.on('message', (m: any) => { if (m === 'mem') { process.send!({ mem: peak }); peak = zero(); } });
  process.once('SIGTERM', () => { server.close(); void h.close().finally(() => process.exit(0)); });
}
