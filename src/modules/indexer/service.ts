import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import type { ChainRuntime, ChainsService } from '../chains/service.js';
import type { OrdersService } from '../orders/service.js';
import { applyItems } from './apply-logs.js';
import { header, INITIAL_RANGE } from './fetch-range.js';
import { createPrefetcher } from './prefetch.js';
import { confirmedTarget, finalityOf } from './finality.js';
import type { IndexerHooks } from './hooks.js';
import { leaseRepo, statsRepo } from './lease.js';
import { createLoops } from './loop.js';
import { checkCursor, reportReorg } from './reorg.js';
import { indexerRepo, type CursorRow } from './repo.js';
import { readStatus } from './status.js';

export type { IndexerHooks } from './hooks.js';
export type { ChainStatus } from './status.js';

export type IndexerDeps = {
  db: Db;
  config: Config;
  chains: ChainsService;
  orders: OrdersService;
  hooks: () => IndexerHooks;
  logger: Logger;
  metrics: Metrics;
  /** OrderPaid logs per set-based batch (apply-logs.ts PAID_BATCH by default; tests make it small). */
  batchSize?: number;
  /**
   * Tests only: `beforeCommit` runs after a range's logs are read and applied, before the transaction commits;
   * `afterBatch` after each set-based batch inside it (a crash mid-range).
   */
  faults?: { beforeCommit?: (chainId: number) => void; afterBatch?: (chainId: number, appliedSoFar: number) => void };
};

export type TickResult = { applied: number; caughtUp: boolean };

/**
 * Per chain: a cursor (block, hash, time) in the database; the router's logs and the USDC transfers to it
 * read from cursor+1 up to min(head − confirmations, the node's finality tag) in bounded ranges, checked
 * against the canonical block hashes; each event applied once (chain, event key) in the same transaction
 * that moves the cursor and writes the outbox rows (DESIGN §6). A crash anywhere rolls the range back and
 * the next tick reads it again. Instances coordinate through indexer_chains (enabled flag, lease); an
 * advisory lock plus a compare-and-set on the cursor let exactly one apply a range whatever happens.
 */
export function createIndexer(deps: IndexerDeps) {
  const { db, config, chains, logger } = deps;
  const devnet = config.env === 'devnet';
  const ranges = new Map<number, { range: bigint }>();
  const rangeOf = (chainId: number) => ranges.get(chainId) ?? ranges.set(chainId, { range: INITIAL_RANGE }).get(chainId)!;
  const prefetch = createPrefetcher();
  const floorOf = (rt: ChainRuntime) => (rt.startBlock !== undefined ? rt.startBlock - 1n : -1n);

  /** Runs fn as the one writer of this chain's cursor: advisory lock, cursor unchanged, and (fenced) lease and enabled still ours. */
  async function guarded<T>(chainId: number, cursor: bigint, holder: string | null, fn: (tx: Tx) => Promise<T>): Promise<T | null> {
    return db.transaction().execute(async (tx) => {
      if (!(await indexerRepo.tryLock(tx, chainId))) return null; // another instance is applying this chain
      if ((await indexerRepo.cursorForUpdate(tx, chainId))?.block !== cursor) return null; // it already moved on
      if (holder !== null && !(await leaseRepo.stillHeld(tx, chainId, holder))) return null; // stopped, or taken over
      return fn(tx);
    });
  }

  async function cursorOf(rt: ChainRuntime, target: bigint): Promise<CursorRow> {
    const cur = await indexerRepo.cursor(db, rt.chainId);
    if (cur) return cur;
    // From the router's deployment block when known; else devnet from genesis, a real network from where
    // the service first ran (orders only exist from then).
    await indexerRepo.initCursor(db, rt.chainId, rt.startBlock !== undefined ? rt.startBlock - 1n : devnet ? -1n : target);
    return (await indexerRepo.cursor(db, rt.chainId))!;
  }

  /** After a reorg below the depth: the cursor goes back rescanDepth blocks (keys make the re-read harmless). */
  async function rescan(rt: ChainRuntime, cur: CursorRow, to: bigint, holder: string | null) {
    const h = to >= 0n ? await header(rt, to) : null;
    await guarded(rt.chainId, cur.block, holder, (tx) => indexerRepo.setCursor(tx, rt.chainId, to, h?.hash ?? null, h?.time ?? null));
  }

  /** One step: read and apply at most one range. `holder`: the lease this step runs under (null: runOnce). */
  async function tick(chainId: number, holder: string | null = null): Promise<TickResult> {
    const rt = chains.get(chainId);
    const finality = finalityOf(rt, devnet);
    const t = await confirmedTarget(rt, finality);
    const r = await step(rt, t.target, holder);
    await statsRepo.ran(db, chainId, { head: t.head, target: t.target, finality, source: t.source });
    return r;
  }

  async function step(rt: ChainRuntime, target: bigint, holder: string | null): Promise<TickResult> {
    const cur = await cursorOf(rt, target);
    const check = await checkCursor(db, rt, cur, floorOf(rt), target);
    if (!check.ok) {
      await reportReorg(db, logger, rt, cur, check);
      await rescan(rt, cur, check.rescanTo, holder);
      return { applied: 0, caughtUp: false };
    }
    if (target <= cur.block) return { applied: 0, caughtUp: true };
    return applyRange(rt, cur, target, holder);
  }

  async function applyRange(rt: ChainRuntime, cur: CursorRow, target: bigint, holder: string | null): Promise<TickResult> {
    const chainId = rt.chainId;
    const s = rangeOf(chainId);
    const from = cur.block + 1n;
    const read = await prefetch.take(rt, s, from, target);
    if (read.inconsistent) {
      logger.warn({ chain_id: chainId, block: read.inconsistent.blockNumber.toString() }, 'a log does not match its block (reorg while reading): range not applied, read again next tick');
      return { applied: 0, caughtUp: true };
    }
    const to = read.headers.get(read.to)!;
    prefetch.ahead(rt, s, read.to, target);
    const applied = await guarded(chainId, cur.block, holder, async (tx) => {
      const n = await applyItems(tx, deps, chainId, read, rt.usdc);
      if (n > 0) await statsRepo.applied(tx, chainId, n);
      await indexerRepo.setCursor(tx, chainId, read.to, to.hash, to.time);
      deps.faults?.beforeCommit?.(chainId);
      return n;
    });
    if (applied !== null && applied > 0) deps.hooks().afterCommit?.();
    return { applied: applied ?? 0, caughtUp: read.to >= target };
  }

  const loops = createLoops({ db, config, chains, logger, tick });

  return {
    tick,

    /** Until caught up (tests and operators): returns the number of events applied. Ignores the enabled flag. */
    async runOnce(chainId: number, maxSteps = 1000): Promise<number> {
      let total = 0;
      for (let i = 0; i < maxSteps; i++) {
        const r = await tick(chainId);
        total += r.applied;
        if (r.caughtUp) break;
      }
      return total;
    },

    /** Indexing loops in this process (workers): they index a chain while it is enabled and they hold its lease. */
    start: loops.start,
    /** Stops this process's loops (a tick in flight finishes or rolls back first) and gives up their leases. */
    stop: loops.stop,

    /** POST /_/indexer/start: enabled in the database, for whichever instance indexes. */
    async enable() {
      for (const rt of chains.list()) await leaseRepo.setEnabled(db, rt.chainId, true);
      if (config.role !== 'api') await loops.startAndClaim();
      return readStatus(db, chains, devnet);
    },

    /** POST /_/indexer/stop: waits for a range being applied; none applies after it, on any instance. */
    async disable() {
      for (const rt of chains.list()) await leaseRepo.setEnabled(db, rt.chainId, false);
      return readStatus(db, chains, devnet);
    },

    status: () => readStatus(db, chains, devnet),
  };
}

export type Indexer = ReturnType<typeof createIndexer>;
