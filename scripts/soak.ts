/**
 * Bounded soak: two service instances (child processes) on one fresh PostgreSQL database and one anvil
 * chain (1-second blocks), a steady stream of orders created through both, each paid on chain by a pool of
 * buyers, confirmed by the indexer and delivered as an order.confirmed webhook to a local receiver. At the
 * end every order, event and delivery is accounted for, memory is compared across the run, and every
 * answer that was not a 2xx must have been an expected 4xx.
 *
 *   npm run soak                       5 minutes at 2 orders/s
 *   SOAK_SECONDS=30 SOAK_RATE=3 npm run soak
 *
 * Exits 1 when something was lost, doubled or answered wrongly. test/reliability/soak.test.ts runs it
 * for 30 s; test/reliability/db-outage.test.ts runs it with the database taken away for a while.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { erc20Abi, maxUint256, type LocalAccount } from 'viem';
import { paymentRouterAbi } from '../src/chain/artifacts/PaymentRouter.js';
import { payOrderFromJson } from '../src/chain/eip712.js';
import { asAdmin } from '../test/reliability/helpers/pg.js';
import { client, freePort, startService, type HttpRes, type ServiceProcess } from '../test/reliability/helpers/service.js';
import { onboardOverHttp, startStack } from '../test/reliability/helpers/stack.js';
import { startReceiver } from '../test/helpers/webhook-receiver.js';

export type SoakOptions = {
  seconds: number;
  /** Orders created per second (spread over both instances). */
  rate?: number;
  buyers?: number;
  /** Take the database away (connections refused, backends terminated) from this second of the run… */
  dbOutageAt?: number;
  /** …for this long. */
  dbOutageSeconds?: number;
  log?: (line: string) => void;
};

export type SoakReport = {
  seconds: number;
  ordersIntended: number;
  ordersAcknowledged: number;
  ordersInDb: number;
  paid: number;
  confirmed: number;
  confirmedEvents: number;
  deliveries: { succeeded: number; other: number };
  received: { requests: number; distinctEvents: number; duplicates: number };
  statuses: Record<string, number>;
  unexpected: string[];
  problems: string[];
  rssMb: { instance: string; start: number; mid: number; end: number; max: number }[];
  health: { downSeen: boolean; recoveredAfterMs: number | null };
  requests: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : 0);

export async function soak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const rate = opts.rate ?? 2;
  const stack = await startStack({ buyers: opts.buyers ?? 8 });
  const receiver = await startReceiver();
  const instances: ServiceProcess[] = [];
  try {
    const ports = [await freePort(), await freePort()];
    // Both at once: migrations and the first indexer tick race each other on purpose.
    instances.push(...(await Promise.all(ports.map((port) => startService({ entry: 'test/reliability/helpers/soak-instance.ts', env: stack.env(port), port })))));
    const [A, B] = instances as [ServiceProcess, ServiceProcess];
    log(`soak: instances on ${A.url} and ${B.url}, database ${stack.db.name}, ${opts.seconds}s at ${rate} orders/s`);
    const P = await onboardOverHttp(A.url);
    const ep = await client(A.url)('POST', '/v1/webhooks/endpoints', { key: P.key, body: { url: receiver.url('/soak'), subscribed_events: ['order.confirmed'] } });
    if (ep.status !== 201) throw new Error(`endpoint: ${ep.status} ${ep.text}`);

    const statuses: Record<string, number> = {};
    const unexpected: string[] = [];
    let requests = 0;
    let outage = { from: Infinity, to: -Infinity };
    const inOutage = (at: number) => at >= outage.from - 1_000 && at <= outage.to + 10_000;
    /** Every call, counted; a 5xx or an unlisted status is unexpected (unless the database was away). */
    async function call(inst: ServiceProcess, method: string, path: string, o: Parameters<ReturnType<typeof client>>[2], expected: number[]): Promise<HttpRes | null> {
      const at = Date.now();
      requests++;
      let res: HttpRes | null = null;
      try {
        res = await client(inst.url)(method, path, { timeoutMs: 20_000, ...o });
      } catch (err) {
        if (!inOutage(at)) unexpected.push(`${method} ${path}: ${(err as Error).message}`);
        statuses.network = (statuses.network ?? 0) + 1;
        return null;
      }
      const key = `${method} ${path.replace(/\/(ord|cs|re|we|evt)_[A-Za-z0-9]+/, '/:id')} ${res.status}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (!expected.includes(res.status) && !(inOutage(at) && (res.status === 503 || (res.status === 409 && res.body?.error?.code === 'idempotency_key_in_use')))) {
        unexpected.push(`${key}: ${res.text.slice(0, 200)}`);
      }
      return res;
    }

    // Buyers: each approves the router once, then pays the orders it is handed, one after another.
    const queue: { id: string; pay_to: `0x${string}`; eip712: never; signature: `0x${string}` }[] = [];
    const paid = new Set<string>();
    const payErrors: string[] = [];
    let producing = true;
    async function buyer(account: LocalAccount) {
      const wallet = stack.chain.walletClientFor(account);
      const approve = await wallet.writeContract({ address: stack.chain.usdc, abi: erc20Abi, functionName: 'approve', args: [stack.chain.router, maxUint256] });
      await stack.chain.publicClient.waitForTransactionReceipt({ hash: approve });
      while (producing || queue.length > 0) {
        const o = queue.shift();
        if (!o) {
          await sleep(100);
          continue;
        }
        try {
          const hash = await wallet.writeContract({ address: o.pay_to, abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(o.eip712), o.signature] });
          const receipt = await stack.chain.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
          if (receipt.status === 'success') paid.add(o.id);
          else payErrors.push(`${o.id}: reverted`);
        } catch (err) {
          payErrors.push(`${o.id}: ${(err as Error).message.split('\n')[0]}`);
        }
      }
    }
    const buyers = stack.chain.buyers.map((b) => buyer(b));

    // RSS and health, sampled through the run.
    const rss: number[][] = instances.map(() => []);
    let downSeen = false;
    let recoveredAfterMs: number | null = null;
    const sampler = setInterval(() => instances.forEach((inst, i) => rss[i]!.push(inst.rssKb())), 1_000);

    /** Creates one order the way a careful client does: one Idempotency-Key, retried until it has an answer. */
    const acknowledged = new Map<string, string>(); // order_no → order id
    const gaveUp: string[] = [];
    const pendingCreates: Promise<void>[] = [];
    async function createOrder(n: number) {
      const inst = instances[n % 2]!;
      const orderNo = `soak-${n}-${randomBytes(3).toString('hex')}`;
      const body = { merchant_id: P.merchant.external_id, order_no: orderNo, chain_id: 84532, token: 'USDC', amount: `${1 + (n % 50)}.${String(n % 100).padStart(2, '0')}`, metadata: { n } };
      const idem = `soak-${orderNo}`;
      // A careful client retries with the same key until it has an answer (bounded: the run plus 30 s).
      for (let attempt = 0; Date.now() < deadline + 30_000; attempt++) {
        const res = await call(instances[(n + attempt) % 2]!, 'POST', '/v1/orders', { key: P.key, body, idem }, [201]);
        if (res?.status === 201) {
          acknowledged.set(orderNo, res.body.id);
          queue.push(res.body);
          // A reader polling its order, as a dashboard would.
          await call(inst, 'GET', `/v1/orders/${res.body.id}`, { key: P.key }, [200]);
          return;
        }
        await sleep(500);
      }
      gaveUp.push(orderNo);
    }

    const started = Date.now();
    const deadline = started + opts.seconds * 1000;
    const outageAt = opts.dbOutageAt !== undefined ? started + opts.dbOutageAt * 1000 : Infinity;
    let outageDone = false;
    let n = 0;
    while (Date.now() < deadline) {
      const tickStart = Date.now();
      if (!outageDone && tickStart >= outageAt) {
        outageDone = true;
        pendingCreates.push(databaseOutage());
      }
      for (let i = 0; i < rate; i++) pendingCreates.push(createOrder(n++));
      // Expected refusals mixed in: a reused order_no (409), a bad amount (422), someone else's id (404).
      if (n % 10 === 0 && acknowledged.size > 0) {
        const [orderNo] = [...acknowledged.keys()];
        await call(A, 'POST', '/v1/orders', { key: P.key, body: { merchant_id: P.merchant.external_id, order_no: orderNo, chain_id: 84532, token: 'USDC', amount: '1.00' } }, [409]);
        await call(B, 'POST', '/v1/orders', { key: P.key, body: { merchant_id: P.merchant.external_id, order_no: 'x', chain_id: 84532, token: 'USDC', amount: '1e3' } }, [422]);
        await call(B, 'GET', '/v1/orders/ord_doesnotexist0000000', { key: P.key }, [404]);
        await call(A, 'GET', '/v1/orders?limit=20', { key: P.key }, [200]);
      }
      await sleep(Math.max(0, 1000 - (Date.now() - tickStart)));
    }

    async function databaseOutage() {
      const ms = (opts.dbOutageSeconds ?? 4) * 1000;
      log(`soak: database away for ${ms / 1000}s`);
      outage = { from: Date.now(), to: Date.now() + ms };
      await asAdmin(`alter database ${stack.db.name} allow_connections false`);
      await asAdmin('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [stack.db.name]);
      const until = Date.now() + ms;
      while (Date.now() < until) {
        const h = await Promise.all(instances.map((i) => fetch(`${i.url}/health`).then((r) => r.status, () => 0)));
        if (h.every((s) => s === 503)) downSeen = true;
        await sleep(250);
      }
      await asAdmin(`alter database ${stack.db.name} allow_connections true`);
      outage.to = Date.now();
      const back = Date.now();
      for (;;) {
        const h = await Promise.all(instances.map((i) => fetch(`${i.url}/health`).then((r) => r.status, () => 0)));
        if (h.every((s) => s === 200)) {
          recoveredAfterMs = Date.now() - back;
          break;
        }
        if (Date.now() - back > 30_000) break;
        await sleep(100);
      }
      log(`soak: database back; /health 503 seen: ${downSeen}, 200 again after ${recoveredAfterMs} ms`);
    }

    await Promise.all(pendingCreates);
    producing = false;
    await Promise.all(buyers);
    log(`soak: ${acknowledged.size} orders acknowledged, ${paid.size} paid; draining`);

    // Drain: the indexer confirms, the deliverers deliver. Bounded.
    const q = stack.db.query.bind(stack.db);
    const drainUntil = Date.now() + 90_000;
    for (;;) {
      const c = (await q(`select
        (select count(*)::int from orders where state = 'confirmed') as confirmed,
        (select count(*)::int from webhook_deliveries where state <> 'succeeded') as undelivered`)).rows[0];
      if (c.confirmed >= paid.size && c.undelivered === 0) break;
      if (Date.now() > drainUntil) break;
      await sleep(500);
    }
    clearInterval(sampler);

    // Accounting, from the database and the receiver.
    const problems: string[] = [...payErrors.map((e) => `payment failed: ${e}`)];
    const orders = (await q(`select id, order_no, state from orders where platform_id = $1`, [P.platformId])).rows as { id: string; order_no: string; state: string }[];
    const byNo = new Map(orders.map((o) => [o.order_no, o]));
    if (orders.length !== acknowledged.size) problems.push(`${orders.length} orders in the database, ${acknowledged.size} acknowledged`);
    for (const [no, id] of acknowledged) if (byNo.get(no)?.id !== id) problems.push(`order ${no}: acknowledged ${id}, database has ${byNo.get(no)?.id}`);
    for (const id of paid) {
      const o = orders.find((x) => x.id === id);
      if (o?.state !== 'confirmed') problems.push(`paid order ${id} is ${o?.state}`);
    }
    const events = (await q(`select id, data->'object'->>'id' as order_id from events where type = 'order.confirmed' and platform_id = $1`, [P.platformId])).rows as { id: string; order_id: string }[];
    const eventsPerOrder = new Map<string, number>();
    for (const e of events) eventsPerOrder.set(e.order_id, (eventsPerOrder.get(e.order_id) ?? 0) + 1);
    for (const id of paid) if (eventsPerOrder.get(id) !== 1) problems.push(`order ${id}: ${eventsPerOrder.get(id) ?? 0} order.confirmed events`);
    const logs = (await q(`select onchain_id, count(*)::int as n from chain_logs where event_name = 'OrderPaid' group by 1 having count(*) > 1`)).rows;
    if (logs.length) problems.push(`${logs.length} OrderPaid logs applied twice`);
    const deliveries = (await q(`select state, count(*)::int as n from webhook_deliveries group by 1`)).rows as { state: string; n: number }[];
    const succeeded = deliveries.find((d) => d.state === 'succeeded')?.n ?? 0;
    const other = deliveries.filter((d) => d.state !== 'succeeded').reduce((s, d) => s + d.n, 0);
    if (succeeded !== events.length || other > 0) problems.push(`deliveries: ${succeeded} succeeded, ${other} not, for ${events.length} events`);
    const ids = receiver.received.map((r) => String(r.headers['x-webhook-id']));
    const distinct = new Set(ids);
    if (distinct.size !== events.length) problems.push(`receiver saw ${distinct.size} distinct events of ${events.length}`);
    const duplicates = ids.length - distinct.size;
    if (duplicates > 0) problems.push(`receiver got ${duplicates} duplicate deliveries`);
    if (gaveUp.length) problems.push(`${gaveUp.length} orders never got an answer, e.g. ${gaveUp.slice(0, 3).join(', ')}`);
    if (unexpected.length) problems.push(`${unexpected.length} unexpected answers, e.g. ${unexpected.slice(0, 3).join(' | ')}`);
    if (opts.dbOutageAt !== undefined && (!downSeen || recoveredAfterMs === null)) problems.push(`health during the outage: 503 seen ${downSeen}, recovered ${recoveredAfterMs}`);

    const rssMb = instances.map((inst, i) => {
      const xs = rss[i]!.filter((x) => x > 0).map((x) => Math.round(x / 1024));
      const third = Math.max(1, Math.floor(xs.length / 3));
      return { instance: inst.url, start: median(xs.slice(0, third)), mid: median(xs.slice(third, 2 * third)), end: median(xs.slice(-third)), max: Math.max(...xs, 0) };
    });
    // Flat: past warm-up (the first third), the last third may not grow by more than a quarter (and 64 MB).
    for (const r of rssMb) if (r.end > r.mid * 1.25 && r.end - r.mid > 64) problems.push(`memory grew on ${r.instance}: ${r.mid} → ${r.end} MB`);

    const report: SoakReport = {
      seconds: opts.seconds, ordersIntended: n, ordersAcknowledged: acknowledged.size, ordersInDb: orders.length, paid: paid.size,
      confirmed: orders.filter((o) => o.state === 'confirmed').length, confirmedEvents: events.length,
      deliveries: { succeeded, other }, received: { requests: ids.length, distinctEvents: distinct.size, duplicates },
      statuses, unexpected, problems, rssMb, health: { downSeen, recoveredAfterMs }, requests,
    };
    return report;
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
    await receiver.close();
    await stack.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const seconds = Number(process.env.SOAK_SECONDS ?? 300);
  const report = await soak({
    seconds,
    rate: Number(process.env.SOAK_RATE ?? 2),
    ...(process.env.SOAK_DB_OUTAGE_AT ? { dbOutageAt: Number(process.env.SOAK_DB_OUTAGE_AT), dbOutageSeconds: Number(process.env.SOAK_DB_OUTAGE_SECONDS ?? 4) } : {}),
  });
  console.log(JSON.stringify(report, null, 2));
  console.log(report.problems.length === 0 ? `soak: held (${report.ordersAcknowledged} orders, ${report.paid} paid, ${report.received.requests} webhooks, ${report.requests} requests)` : `soak: FAILED\n${report.problems.join('\n')}`);
  process.exit(report.problems.length === 0 ? 0 : 1);
}
