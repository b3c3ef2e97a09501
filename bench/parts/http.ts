/**
 * Order creation and checkout over real HTTP: the service in a child process (bench/lib/service-child.ts),
 * autocannon in this one. For each concurrency: the service's POST /v1/orders, the limit route (one
 * EIP-712 signature + one INSERT behind the same HTTP stack) and the INSERT alone inside the service process.
 */
import type { ServiceHandle } from '../lib/service.js';
import { load, type LoadResult } from '../lib/load.js';
import { loadAvg, log, rssMiB, rssSampler, round } from '../lib/util.js';

export type OrdersRow = {
  db: string;
  connections: number;
  service: LoadResult & { cpu_ms_per_req: number | null };
  limit: LoadResult & { cpu_ms_per_req: number | null };
  insert: { per_s: number; p50_ms: number | null; p99_ms: number | null; errors: number };
  ratio: number | null;
  rss_peak_mib: number;
  load_avg: [number, number, number];
};

let seq = 0;
const runTag = Date.now().toString(36);

/**
 * CPU time the service process spent per answered request (user + system): far steadier than throughput on
 * a machine shared with other work, so it is what before/after comparisons of the service's own code use.
 */
export async function withCpu<T extends LoadResult>(svc: ServiceHandle, run: () => Promise<T>): Promise<T & { cpu_ms_per_req: number | null }> {
  const before = await svc.call<NodeJS.CpuUsage>('cpu');
  const r = await run();
  const after = await svc.call<NodeJS.CpuUsage>('cpu');
  const ms = (after.user - before.user + after.system - before.system) / 1000;
  return { ...r, cpu_ms_per_req: r.ok > 0 ? round(ms / r.ok, 3) : null };
}

export function orderRequest(svc: ServiceHandle, connections: number, seconds: number) {
  return withCpu(svc, () => load({
    url: `http://127.0.0.1:${svc.port}/v1/orders`,
    method: 'POST',
    headers: { authorization: `Bearer ${svc.secretKey}`, 'content-type': 'application/json' },
    body: () => JSON.stringify({ merchant_id: svc.merchantId, order_no: `b_${runTag}_${++seq}`, chain_id: 84532, token: 'USDC', amount: '25.00' }),
    connections,
    seconds,
  }));
}

const limitRequest = (svc: ServiceHandle, connections: number, seconds: number) =>
  withCpu(svc, () => load({ url: `http://127.0.0.1:${svc.port}/__bench/sign-insert`, method: 'POST', connections, seconds }));

export async function benchOrders(svc: ServiceHandle, o: { seconds: number; connections: number[] }) {
  const idle = rssMiB(svc.pid);
  log(`orders/${svc.kind}: warm-up`);
  await orderRequest(svc, 16, 2);
  await limitRequest(svc, 16, 1);
  const rows: OrdersRow[] = [];
  for (const c of o.connections) {
    log(`orders/${svc.kind}: c=${c}`);
    const sampler = rssSampler(svc.pid);
    const service = await orderRequest(svc, c, o.seconds);
    const rssPeak = sampler.stop();
    const limit = await limitRequest(svc, c, o.seconds);
    const insert = await svc.call<OrdersRow['insert']>('insert', { concurrency: c, ms: o.seconds * 1000 });
    const ratio = limit.per_s > 0 ? round(service.per_s / limit.per_s, 2) : null;
    rows.push({ db: svc.kind, connections: c, service, limit, insert, ratio, rss_peak_mib: rssPeak, load_avg: loadAvg() });
    log(`  service ${service.per_s}/s p50 ${service.p50_ms} p99 ${service.p99_ms} cpu ${service.cpu_ms_per_req} ms | limit ${limit.per_s}/s cpu ${limit.cpu_ms_per_req} ms | insert ${insert.per_s}/s | ratio ${ratio}`);
  }
  return { rss_idle_mib: idle, rows };
}

export async function benchCheckout(svc: ServiceHandle, o: { seconds: number }) {
  const base = `http://127.0.0.1:${svc.port}`;
  log(`checkout/${svc.kind}: create`);
  const create = await withCpu(svc, () => load({
    url: `${base}/v1/checkout/sessions`,
    method: 'POST',
    headers: { authorization: `Bearer ${svc.secretKey}`, 'content-type': 'application/json' },
    body: () => JSON.stringify({ merchant_id: svc.merchantId, order_no: `cs_${runTag}_${++seq}`, chain_id: 84532, token: 'USDC', amount: '12.50' }),
    connections: 16,
    seconds: o.seconds,
  }));
  const tokens = await svc.call<string[]>('sessions', { n: 200 });
  const randomPath = () => `/v1/checkout/sessions/${tokens[Math.floor(Math.random() * tokens.length)]}`;
  const reads: LoadResult[] = [];
  await load({ url: `${base}${randomPath()}`, path: randomPath, connections: 16, seconds: 2 }); // warm-up, as for orders
  for (const c of [16, 64]) {
    log(`checkout/${svc.kind}: public read c=${c}`);
    reads.push(await withCpu(svc, () => load({ url: `${base}${randomPath()}`, path: randomPath, connections: c, seconds: o.seconds })));
  }
  // Real buyer pages poll their own session every 2 s. 4,000 sessions read in turn: as buyers poll (the
  // cache keeps each answer until its session changes or expires; one pass first, as every page's first
  // read), then with the cache storing nothing: every read a miss, the statement's own rate.
  const many = await svc.call<string[]>('sessions', { n: 4000 });
  let turn = 0;
  const nextPath = () => `/v1/checkout/sessions/${many[turn++ % many.length]}`;
  log(`checkout/${svc.kind}: public read as buyers poll (4,000 sessions in turn, after one pass)`);
  await load({ url: `${base}${nextPath()}`, path: nextPath, connections: 16, amount: many.length });
  const polled = await withCpu(svc, () => load({ url: `${base}${nextPath()}`, path: nextPath, connections: 16, seconds: o.seconds }));
  log(`checkout/${svc.kind}: public read, every read a cache miss (the same, the cache storing nothing)`);
  await svc.call('caching', { on: false });
  const uncached = await withCpu(svc, () => load({ url: `${base}${nextPath()}`, path: nextPath, connections: 16, seconds: o.seconds }));
  await svc.call('caching', { on: true });
  log(`  create ${create.per_s}/s p99 ${create.p99_ms} | read ${reads.map((r) => `${r.per_s}/s p99 ${r.p99_ms}`).join(', ')} | polled ${polled.per_s}/s cpu ${polled.cpu_ms_per_req} ms | uncached ${uncached.per_s}/s cpu ${uncached.cpu_ms_per_req} ms`);
  return { db: svc.kind, create, public_read: reads, public_read_polled: polled, public_read_uncached: uncached, load_avg: loadAvg() };
}
