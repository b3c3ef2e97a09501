/**
 * Webhook deliveries/s to a local receiver (its own process, answers 200 at once) with 1, 10 and 100
 * endpoints. The outbox is filled first (events with one pending delivery per endpoint, as the indexer
 * writes them), then the product's deliverer runs with its production settings (DEFAULT_CONCURRENCY in flight,
 * DEFAULT_PER_ENDPOINT per endpoint, polled every second and whenever an attempt finishes) until every
 * delivery has succeeded. Before each, a bare keep-alive client posts as many bodies to the same receiver (the limit).
 * A platform may have 16 endpoints, so 100 endpoints are spread over 7 platforms.
 * BENCH_PROFILE=<dir>: both sides run under V8's CPU profiler; each row gets the CPU microseconds per delivery by
 * category (http client, pg driver, hmac, json, gc, the webhooks module…) and the raw profiles go to <dir>.
 */
import { createLogger } from '../../src/lib/logger.js';
import { emitEvents, type EmitManyInput } from '../../src/modules/events/emit-many.js';
import http from 'node:http';
import { sql } from 'kysely';
import { Pool } from 'undici';
import { createWebhookDeliverer, DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT } from '../../src/modules/webhooks/deliver.js';
import { claimRepo } from '../../src/modules/webhooks/repo.js';
import { createHarness, type Harness } from '../../test/helpers/harness.js';
import { freshLocation, openLocation, type DbKind } from '../lib/db.js';
import { startReceiver, type Receiver } from '../lib/receiver.js';
import { profileWhile, type ProfileBreakdown } from '../lib/profile.js';
import { cpuOfProcesses, loadAvg, log, round, sleep } from '../lib/util.js';

const PER_PLATFORM = 16;

/** An order.confirmed payload of the usual size (~1.5 kB), so bodies and signatures cost what they do in production. */
const payload = (i: number) => ({
  id: `ord_bench${String(i).padStart(12, '0')}`, object: 'order', merchant_id: 'm_bench', order_no: `wh_${i}`, chain_id: 84532, token: 'USDC',
  token_address: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', amount: '25', metadata: { cart: 'c_123', i }, state: 'confirmed',
  pay_to: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  computed_split: { service_fee: '250000', platform_fee: '1250000', merchant_gross: '23500000', reserve_hold: '2350000', merchant_available: '21150000' },
  signature: `0x${'ab'.repeat(65)}`, deadline_at: new Date().toISOString(), payer_address: null, paid_by: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  tx_hash: `0x${'cd'.repeat(32)}`, refunded_amount: '0', checkout_session_id: null, failure_reason: null, created_at: new Date().toISOString(), confirmed_at: new Date().toISOString(),
});

/** One POST on a keep-alive agent (node:http); resolves with the status once the answer is read. */
const postNode = (url: string, body: string, agent: http.Agent) => new Promise<number>((resolve, reject) => {
  const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode ?? 0));
  });
  req.on('error', reject);
  req.end(body);
});

/** One POST through an undici pool (its dispatch API, as the deliverer sends); resolves with the status once the answer is read. */
const postUndici = (pool: Pool, path: string, body: string) => new Promise<number>((resolve, reject) => {
  let status = 0;
  pool.dispatch({ path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body }, {
    onConnect() {},
    onHeaders(s) { status = s; return true; },
    onData() { return true; },
    onComplete() { resolve(status); },
    onError: reject,
  });
});

/**
 * The limit: a bare keep-alive HTTP client posting the same number of bodies of the same size to the same
 * receiver and URLs, with as many requests in flight as the deliverer may have (its caps), and nothing else
 * (no database, no signing): what the receiver and the machine's loopback take at that concurrency. `undici`: the
 * deliverer's own HTTP library, one pool per endpoint as it keeps them (the ratio's limit); `node:http`: Node's
 * client, one keep-alive agent, for reference.
 */
async function bareClient(receiver: Receiver, endpoints: number, total: number, library: 'undici' | 'node:http') {
  const inFlight = Math.min(DEFAULT_CONCURRENCY, endpoints * DEFAULT_PER_ENDPOINT);
  const agent = library === 'node:http' ? new http.Agent({ keepAlive: true, maxSockets: DEFAULT_PER_ENDPOINT }) : null;
  const pools = new Map<string, Pool>();
  const body = JSON.stringify({ id: 'evt_bench', type: 'order.confirmed', created_at: new Date().toISOString(), data: { object: payload(0) } });
  const origin = new URL(receiver.url).origin;
  const path = new URL(receiver.url).pathname;
  await receiver.call('reset');
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < total) {
      const i = next++;
      const query = `?e=${Math.floor(i % endpoints / PER_PLATFORM)}_${i % endpoints % PER_PLATFORM}`;
      let status;
      if (library === 'node:http') {
        status = await postNode(`${receiver.url}${query}`, body, agent!);
      } else {
        let pool = pools.get(query);
        if (!pool) pools.set(query, (pool = new Pool(origin, { connections: DEFAULT_PER_ENDPOINT, pipelining: 1 })));
        status = await postUndici(pool, `${path}${query}`, body);
      }
      if (status !== 200) throw new Error(`bare client: HTTP ${status}`);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  agent?.destroy();
  await Promise.all([...pools.values()].map((p) => p.destroy()));
  return { library, in_flight: inFlight, deliveries: total, seconds: round(seconds, 2)!, per_s: round(total / seconds, 0)! };
}

/**
 * Where a run's time goes: the deliverer's claim and group-commit statements (count, rows, mean and total ms;
 * wrapped on claimRepo for the run), printed beside this process's CPU use (100 % = one core busy).
 */
function timeRepo() {
  const stats = { claims: 0, claimed: 0, claim_ms: 0, commits: 0, committed: 0, commit_ms: 0 };
  const { claim, finishSucceededMany } = claimRepo;
  claimRepo.claim = async (db, l) => {
    const t = performance.now();
    const rows = await claim(db, l);
    stats.claims++; stats.claimed += rows.length; stats.claim_ms += performance.now() - t;
    return rows;
  };
  claimRepo.finishSucceededMany = async (db, rows) => {
    const t = performance.now();
    const done = await finishSucceededMany(db, rows);
    stats.commits++; stats.committed += rows.length; stats.commit_ms += performance.now() - t;
    return done;
  };
  return {
    stop() {
      Object.assign(claimRepo, { claim, finishSucceededMany });
      return {
        claims: stats.claims, rows_per_claim: round(stats.claimed / Math.max(1, stats.claims), 1), claim_ms_mean: round(stats.claim_ms / Math.max(1, stats.claims), 1), claim_ms_total: round(stats.claim_ms, 0),
        commits: stats.commits, rows_per_commit: round(stats.committed / Math.max(1, stats.commits), 1), commit_ms_mean: round(stats.commit_ms / Math.max(1, stats.commits), 1), commit_ms_total: round(stats.commit_ms, 0),
      };
    },
  };
}

/** CPU used so far (µs) by this process, the receiver's and PostgreSQL's (when it runs on this machine). */
async function machineCpu(receiver: Receiver) {
  const own = process.cpuUsage();
  return { bench: own.user + own.system, receiver: await receiver.call<number>('cpu'), postgres: cpuOfProcesses('postgres') };
}
type MachineCpu = Awaited<ReturnType<typeof machineCpu>>;
/** µs of CPU per delivery in each process between two snapshots: the whole machine's cost of one delivery. */
const cpuPer = (a: MachineCpu, b: MachineCpu, n: number) => ({
  bench: round((b.bench - a.bench) / n, 0), receiver: round((b.receiver - a.receiver) / n, 0),
  postgres: a.postgres === null || b.postgres === null ? null : round((b.postgres - a.postgres) / n, 0),
});

async function scenario(kind: DbKind, receiver: Receiver, endpoints: number, deliveries: number) {
  const loc = await freshLocation(kind);
  const h: Harness = await createHarness({ database: openLocation(loc), logger: createLogger('silent', 'devnet') });
  try {
    const platforms: { id: string; endpoints: number }[] = [];
    for (let left = endpoints; left > 0; left -= PER_PLATFORM) {
      const p = await h.platform();
      const k = Math.min(PER_PLATFORM, left);
      for (let e = 0; e < k; e++) {
        const r = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: `${receiver.url}?e=${platforms.length}_${e}`, subscribed_events: ['*'] } });
        if (r.status !== 201) throw new Error(r.text);
      }
      platforms.push({ id: p.platformId, endpoints: k });
    }
    const events = Math.ceil(deliveries / endpoints);
    let n = 0;
    for (let i = 0; i < events; i += 500) {
      const batch: EmitManyInput[] = [];
      for (let j = i; j < Math.min(events, i + 500); j++) {
        for (const p of platforms) batch.push({ platformId: p.id, type: 'order.confirmed' as const, data: { object: payload(n++) } });
      }
      await h.db.transaction().execute((tx) => emitEvents(tx, batch));
    }
    const total = events * endpoints;
    // Statistics as autovacuum keeps them (it analyzes a table within a minute of this many inserts): a fresh database has none.
    if (kind === 'postgres') await sql`analyze`.execute(h.db);
    const dir = process.env.BENCH_PROFILE;
    const profiled = <T>(name: string, fn: () => Promise<T>, per: () => number) =>
      dir ? profileWhile(fn, per, `${dir}/${kind}-${endpoints}-${name}.cpuprofile`) : fn().then((result) => ({ result, us_per_unit: null as ProfileBreakdown | null }));
    const bareCpu = await machineCpu(receiver);
    const bare = await profiled('bare', () => bareClient(receiver, endpoints, total, 'undici'), () => total);
    const limit = { ...bare.result, cpu_us_per_request: cpuPer(bareCpu, await machineCpu(receiver), total) };
    const nodeHttp = (await bareClient(receiver, endpoints, total, 'node:http'));
    await receiver.call('reset');
    const timing = timeRepo();
    const cpu = process.cpuUsage();
    const before = await machineCpu(receiver);
    const deliverer = createWebhookDeliverer({ db: h.db, config: h.config, logger: createLogger('silent', 'devnet'), secrets: h.services.webhookSecrets });
    const started = performance.now();
    let done = 0;
    const run = await profiled('deliverer', async () => {
      deliverer.start(1_000);
      const until = Date.now() + 120_000;
      while (Date.now() < until) {
        await sleep(100);
        if ((await receiver.call<number>('count')) < total) continue;
        done = Number((await h.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('state', '=', 'succeeded').executeTakeFirstOrThrow()).n);
        if (done >= total) break;
      }
    }, () => done);
    const seconds = (performance.now() - started) / 1000;
    await deliverer.stop();
    const used = process.cpuUsage(cpu);
    const breakdown = { ...timing.stop(), bench_cpu_pct: round((used.user + used.system) / 10_000 / seconds, 0), cpu_us_per_delivery: cpuPer(before, await machineCpu(receiver), done) };
    const perS = round(done / seconds, 0)!;
    const cpu_us_per_delivery = run.us_per_unit ? { deliverer: run.us_per_unit, bare_client: bare.us_per_unit } : undefined;
    return { db: kind, endpoints, deliveries: done, seconds: round(seconds, 2)!, per_s: perS, limit, ratio: round(perS / limit.per_s, 2), node_http: { per_s: nodeHttp.per_s, ratio: round(perS / nodeHttp.per_s, 2) }, breakdown, cpu_us_per_delivery, load_avg: loadAvg() };
  } finally {
    await h.close();
    await loc.dispose();
  }
}

export async function benchWebhooks(o: { dbs: DbKind[]; deliveries?: number }) {
  const receiver = await startReceiver(false);
  const rows = [];
  try {
    for (const kind of o.dbs) {
      for (const endpoints of [1, 10, 100]) {
        log(`webhooks/${kind}: ${endpoints} endpoint(s)`);
        rows.push(await scenario(kind, receiver, endpoints, o.deliveries ?? 5000));
        const row = rows.at(-1)!;
        log(`  ${row.deliveries} deliveries in ${row.seconds} s (${row.per_s}/s; bare undici ${row.limit.per_s}/s, ratio ${row.ratio}; bare node:http ${row.node_http.per_s}/s, ratio ${row.node_http.ratio}) ${JSON.stringify(row.breakdown)}`);
        if (row.cpu_us_per_delivery) log(`  CPU µs per delivery: ${JSON.stringify(row.cpu_us_per_delivery)}`);
      }
    }
  } finally {
    await receiver.stop();
  }
  return { settings: { concurrency: DEFAULT_CONCURRENCY, per_endpoint: DEFAULT_PER_ENDPOINT, poll_ms: 1000 }, rows };
}
