/**
 * `npm run bench [-- --only sign,orders,checkout,indexer,webhooks,explain,balance,gasless] [--db pglite,postgres] [--seconds 5]
 *  [--conns 1,16,64] [--logs 10000] [--deliveries 5000]`: measures the hot paths, prints a table and writes bench/results.json. Speed is measured
 * here, never asserted in tests. Whole run ≲ 8 min on the 2-core machine.
 */
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { postgresVersion, type DbKind } from './lib/db.js';
import { startService } from './lib/service.js';
import { loadAvg, log } from './lib/util.js';
import { benchCheckout, benchOrders } from './parts/http.js';
import { benchSign } from './parts/sign.js';
import { printTable } from './lib/table.js';

const PARTS = ['sign', 'orders', 'checkout', 'indexer', 'webhooks', 'explain', 'balance', 'gasless', 'scale'] as const;
type Part = (typeof PARTS)[number];

const USAGE = `npm run bench [-- --only ${PARTS.join(',')}] [--db pglite,postgres] [--seconds 5] [--conns 1,16,64] [--logs 10000] [--deliveries 5000] [--orders 10000000 (scale: PostgreSQL only, not in the default run)]`;

function parseFlags() {
  try {
    return parseArgs({
      options: {
        only: { type: 'string' }, db: { type: 'string' }, seconds: { type: 'string' }, conns: { type: 'string' }, logs: { type: 'string' }, deliveries: { type: 'string' }, orders: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    return usageError((err as Error).message);
  }
}
// Ctrl-C or a kill ends the run through process.exit, so the 'exit' hooks run (anvil is stopped) and the
// forked service and receiver see their IPC channel close and exit too.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));
const flags = parseFlags();
if (flags.help) {
  console.log(`usage: ${USAGE}`);
  process.exit(0);
}
/** A list of the allowed words, or a positive number: anything else stops the run before it starts. */
function choose<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: readonly T[]): T[] {
  const list = value?.split(',') ?? [...fallback];
  for (const v of list) if (!allowed.includes(v as T)) usageError(`--${name}: unknown ${v} (one of ${allowed.join(', ')})`);
  return list as T[];
}
function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]*$/.test(value)) usageError(`--${name}: ${value} is not a positive whole number`);
  return Number(value);
}
function usageError(message: string): never {
  console.error(`${message}\nusage: ${USAGE}`);
  process.exit(2);
}

// scale seeds ~10M orders (tens of GB, ~half an hour): only when asked for by --only.
const only = choose('only', flags.only, PARTS, PARTS.filter((p) => p !== 'scale'));
const dbs = choose<DbKind>('db', flags.db, ['pglite', 'postgres'], ['pglite', 'postgres']);
const seconds = positive('seconds', flags.seconds, 5);
const logs = positive('logs', flags.logs, 10_000);
const deliveries = positive('deliveries', flags.deliveries, 5_000);
const connections = (flags.conns ?? '1,16,64').split(',').map((c) => positive('conns', c, 1));
const outFile = fileURLToPath(new URL('./results.json', import.meta.url));

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const versions = Object.fromEntries(['hono', '@hono/node-server', 'kysely', 'pg', '@electric-sql/pglite', 'viem', 'autocannon', '@foundry-rs/anvil']
  .map((n) => [n, pkg.dependencies?.[n] ?? pkg.devDependencies?.[n] ?? null]));

// A partial run keeps the other parts of the previous results.
const previous = existsSync(outFile) ? JSON.parse(readFileSync(outFile, 'utf8')) : {};
const results: Record<string, any> = {
  ...previous,
  machine: {
    nproc: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? null,
    memory_gib: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
    postgres: await postgresVersion(),
    platform: `${os.type()} ${os.release()}`,
  },
  versions,
  run: { date: new Date().toISOString(), parts: only, dbs, seconds, load_avg_start: loadAvg() },
};

const started = performance.now();
if (only.includes('sign')) results.sign = await benchSign(seconds);
if (only.includes('orders') || only.includes('checkout')) {
  results.orders = only.includes('orders') ? {} : previous.orders;
  results.checkout = only.includes('checkout') ? {} : previous.checkout;
  for (const kind of dbs) {
    log(`starting the service on ${kind}`);
    const svc = await startService(kind);
    try {
      if (only.includes('orders')) results.orders[kind] = await benchOrders(svc, { seconds, connections });
      if (only.includes('checkout')) results.checkout[kind] = await benchCheckout(svc, { seconds });
    } finally {
      await svc.stop();
    }
  }
}
if (only.includes('indexer')) {
  const { benchIndexer } = await import('./parts/indexer.js');
  results.indexer = await benchIndexer({ logs, dbs });
}
if (only.includes('webhooks')) {
  const { benchWebhooks } = await import('./parts/webhooks.js');
  results.webhooks = await benchWebhooks({ dbs, deliveries });
}
if (only.includes('explain')) {
  const { benchExplain } = await import('./parts/explain.js');
  results.explain = await benchExplain();
}
if (only.includes('balance')) results.balance = await (await import('./parts/balance.js')).benchBalance();
if (only.includes('gasless')) results.gasless = await (await import('./parts/gasless.js')).benchGasless({ n: Number(process.env.BENCH_GASLESS_N ?? 200), rounds: Number(process.env.BENCH_GASLESS_ROUNDS ?? 3) });
if (only.includes('scale')) results.scale = await (await import('./parts/scale.js')).benchScale({ orders: positive('orders', flags.orders, 10_000_000) });
results.run.load_avg_end = loadAvg();
results.run.elapsed_s = Math.round((performance.now() - started) / 1000);

writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
printTable(results);
log(`wrote ${outFile} in ${results.run.elapsed_s} s`);
process.exit(0);
