/**
 * `npm run bench [-- --only sign,orders,checkout,indexer,webhooks,explain] [--db pglite,postgres] [--seconds 5]
 *  [--conns 1,16,64] [--logs 10000]`: measures the hot paths, prints a table and writes bench/results.json. Speed is measured
 * here, never asserted in tests. Whole run ≲ 8 min on the 2-core machine.
 */
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { postgresVersion, type DbKind } from './lib/db.js';
import { startService } from './lib/service.js';
import { loadAvg, log } from './lib/util.js';
import { benchCheckout, benchOrders } from './parts/http.js';
import { benchSign } from './parts/sign.js';
import { printTable } from './lib/table.js';

const PARTS = ['sign', 'orders', 'checkout', 'indexer', 'webhooks', 'explain'] as const;
type Part = (typeof PARTS)[number];

function flag(name: string): string | undefined {
  const argv = process.argv.slice(2);
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  const a = argv[i]!;
  return a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[i + 1];
}

const only = (flag('only')?.split(',') ?? [...PARTS]) as Part[];
for (const p of only) if (!PARTS.includes(p)) throw new Error(`--only: unknown part ${p} (parts: ${PARTS.join(', ')})`);
const dbs = (flag('db')?.split(',') ?? ['pglite', 'postgres']) as DbKind[];
const seconds = Number(flag('seconds') ?? 5);
const logs = Number(flag('logs') ?? 10_000);
const connections = (flag('conns') ?? '1,16,64').split(',').map(Number);
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
  results.webhooks = await benchWebhooks({ dbs });
}
if (only.includes('explain')) {
  const { benchExplain } = await import('./parts/explain.js');
  results.explain = await benchExplain();
}
results.run.load_avg_end = loadAvg();
results.run.elapsed_s = Math.round((performance.now() - started) / 1000);

writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
printTable(results);
log(`wrote ${outFile} in ${results.run.elapsed_s} s`);
process.exit(0);
