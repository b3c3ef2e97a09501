import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import type { ChainRuntime, ChainsService } from '../chains/service.js';
import { INITIAL_RANGE, type RangeState } from './fetch-range.js';
import type { AuthorizedTransfers, ChainEventHandlers, DepositHandlers } from './handlers.js';
import { createPrefetcher } from './prefetch.js';

export type IndexerDeps = {
  db: Db;
  config: Config;
  chains: ChainsService;
  /** Who applies each router event (handlers.ts), fixed at wiring time. */
  handlers: ChainEventHandlers;
  /** The x402 module's front-running path (indexer/handlers.ts AuthorizedTransfers). */
  authorizedTransfers?: AuthorizedTransfers;
  /** The deposits module: the addresses to watch and how to apply their logs (indexer/handlers.ts DepositHandlers). */
  deposits?: DepositHandlers;
  /** After a commit that applied logs (and so wrote outbox rows): the webhook deliverer's poke. */
  afterCommit?: () => void;
  logger: Logger;
  metrics: Metrics;
  /** The service clock (timestamps the indexer stamps: cursor and status rows). Chain time comes from blocks. */
  clock?: Clock;
  /** OrderPaid logs per set-based batch (apply-logs.ts PAID_BATCH by default; tests make it small). */
  batchSize?: number;
  /**
   * Tests only: `beforeCommit` runs after a range's logs are read and applied, before the transaction commits;
   * `afterBatch` after each set-based batch inside it (a crash mid-range).
   */
  faults?: { beforeCommit?: (chainId: number) => void; afterBatch?: (chainId: number, appliedSoFar: number) => void };
};

/** The indexer's dependencies plus its per-process state: each chain's adaptive range and its read-ahead. */
export type IndexerCtx = IndexerDeps & {
  clock: Clock;
  devnet: boolean;
  rangeOf: (chainId: number) => RangeState;
  prefetch: ReturnType<typeof createPrefetcher>;
  floorOf: (rt: ChainRuntime) => bigint;
};

export function indexerContext(deps: IndexerDeps): IndexerCtx {
  const ranges = new Map<number, RangeState>();
  return {
    ...deps,
    clock: deps.clock ?? systemClock,
    devnet: deps.config.env === 'devnet',
    rangeOf: (chainId) => ranges.get(chainId) ?? ranges.set(chainId, { range: INITIAL_RANGE }).get(chainId)!,
    prefetch: createPrefetcher(undefined, deps.deposits?.watched),
    floorOf: (rt) => (rt.startBlock !== undefined ? rt.startBlock - 1n : -1n),
  };
}
