import { indexerContext, type IndexerDeps } from './context.js';
import { leaseRepo } from './lease.js';
import { watchHeads } from './head-watch.js';
import { createLoops } from './loop.js';
import { readStatus } from './status.js';
import { runOnce, tick } from './tick.js';

export type { IndexerDeps } from './context.js';
export type { ChainEventHandlers } from './handlers.js';
export type { TickResult } from './apply-range.js';
export type { ChainStatus } from './status.js';

/**
 * Per chain: a cursor (block, hash, time) in the database; the router's logs and the USDC transfers to it
 * read from cursor+1 up to min(head − confirmations, the node's finality tag) in bounded ranges, checked
 * against the canonical block hashes; each event applied once (chain, event key) by its handler
 * (handlers.ts, dispatch.ts) in the same transaction that moves the cursor and writes the outbox rows
 * (DESIGN §6). A crash anywhere rolls the range back and the next tick reads it again. Instances coordinate
 * through indexer_chains (enabled flag, lease); an advisory lock plus a compare-and-set on the cursor let
 * exactly one apply a range whatever happens (guarded.ts).
 */
export function createIndexer(deps: IndexerDeps) {
  const ctx = indexerContext(deps);
  const { db, chains, config, devnet } = ctx;
  const loops = createLoops({ db, config, chains, logger: ctx.logger, clock: ctx.clock, tick: (chainId, holder) => tick(ctx, chainId, holder) });
  let unwatch: (() => void) | null = null;
  return {
    tick: (chainId: number, holder: string | null = null) => tick(ctx, chainId, holder),
    runOnce: (chainId: number, maxSteps?: number) => runOnce(ctx, chainId, maxSteps),
    /** Indexing loops in this process (workers): they index a chain while it is enabled and they hold its lease. */
    start: (chainIds?: number[]) => {
      loops.start(chainIds);
      unwatch ??= watchHeads(chains.list(), (chainId) => loops.poke(chainId), ctx.logger);
    },
    /** Stops this process's loops (a tick in flight finishes or rolls back first) and gives up their leases. */
    stop: async () => {
      unwatch?.();
      unwatch = null;
      await loops.stop();
    },
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
