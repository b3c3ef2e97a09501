/**
 * The indexer's memory with a deep backlog (issue 20: "memory bounded with a backlog of 1,000,000 logs"):
 * `BENCH_INDEXER_MEMORY_LOGS=1000000 npm run bench -- --only indexer --db postgres`. Generating a million
 * payments on anvil takes hours on this machine, so the logs come from a synthetic node (bench/lib/fake-rpc-child.ts,
 * its own process): real ABI-encoded OrderPaid logs, 1,000 per block, with consistent block hashes. The indexer runs
 * its whole path (adaptive ranges, read-ahead, header checks, keying, set-based batches into chain_logs, cursor
 * per range) with the production code; only the OrderPaid handler is a counter, since no orders exist for these
 * logs (the orders module's work is per batch of PAID_BATCH, so it moves time, not the bound). RSS and heap
 * are sampled every 100 ms and shown at each tenth of the backlog: bounded means flat, not growing with it.
 */
import { createLogger } from '../../src/lib/logger.js';
import type { ChainEventHandlers } from '../../src/modules/indexer/handlers.js';
import { createIndexer } from '../../src/modules/indexer/service.js';
import { createHarness } from '../../test/helpers/harness.js';
import { freshLocation, openLocation, type DbKind } from '../lib/db.js';
import { startFakeRpc } from '../lib/fake-rpc.js';
import { loadAvg, log, round } from '../lib/util.js';

const PER_BLOCK = 1_000;
const CHAIN = 84532;
const ROUTER = '0x000000000000000000000000000000000000f001';
const USDC = '0x000000000000000000000000000000000000f002';
const mib = (b: number) => round(b / 2 ** 20, 0)!;

export async function benchIndexerMemory(o: { logs: number; kind: DbKind }) {
  const blocks = Math.ceil(o.logs / PER_BLOCK);
  const rpc = await startFakeRpc({ blocks, perBlock: PER_BLOCK, router: ROUTER, chainId: CHAIN });
  const loc = await freshLocation(o.kind);
  const logger = createLogger('silent', 'devnet');
  const h = await createHarness({ database: openLocation(loc), chains: [{ chainId: CHAIN, rpcUrl: rpc.url, router: ROUTER, usdc: USDC, confirmations: 1 }], logger });
  try {
    let applied = 0;
    const handlers: ChainEventHandlers = { ...h.services.chainEvents, OrderPaid: async (_tx, events) => void (applied += events.length) };
    const indexer = createIndexer({ db: h.db, config: h.config, chains: h.services.chains, handlers, logger, metrics: h.services.metrics });
    const total = blocks * PER_BLOCK;
    const checkpoints: { logs: number; rss_mib: number; heap_mib: number; seconds: number }[] = [];
    let peakRss = 0;
    let peakHeap = 0;
    let next = total / 10;
    const started = performance.now();
    const sample = () => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
      if (applied >= next) {
        checkpoints.push({ logs: applied, rss_mib: mib(m.rss), heap_mib: mib(m.heapUsed), seconds: round((performance.now() - started) / 1000, 1)! });
        log(`  ${applied} logs: RSS ${mib(m.rss)} MiB, heap ${mib(m.heapUsed)} MiB`);
        while (next <= applied) next += total / 10;
      }
    };
    const timer = setInterval(sample, 100);
    const before = process.memoryUsage();
    log(`indexer/${o.kind}: memory with a backlog of ${total} logs (synthetic node, ${PER_BLOCK} per block)`);
    await indexer.runOnce(CHAIN, 1_000_000);
    clearInterval(timer);
    sample();
    const seconds = (performance.now() - started) / 1000;
    return {
      db: o.kind, logs: applied, seconds: round(seconds, 1)!, per_s: round(applied / seconds, 0)!, rss_before_mib: mib(before.rss), heap_before_mib: mib(before.heapUsed),
      rss_peak_mib: mib(peakRss), heap_peak_mib: mib(peakHeap), checkpoints, load_avg: loadAvg(),
    };
  } finally {
    await h.close();
    await loc.dispose();
    await rpc.stop();
  }
}
