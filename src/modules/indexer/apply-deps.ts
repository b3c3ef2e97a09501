import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import type { AuthorizedTransfers, ChainEventHandlers, DepositHandlers } from './handlers.js';

/** What applying a range's logs needs (apply-logs.ts, dispatch.ts). */
export type ApplyDeps = {
  handlers: ChainEventHandlers; logger: Logger; metrics: Metrics;
  /** A USDC transfer into the router that no router event pulled, made by an ERC-3009 authorization (x402 front-running). */
  authorizedTransfers?: AuthorizedTransfers;
  /** Transfers into deposit addresses and the deposits' own events (modules/deposits). */
  deposits?: DepositHandlers;
  /** OrderPaid logs applied per set-based batch (default PAID_BATCH). */
  batchSize?: number;
  /** Tests only: runs after each batch was written, inside the range's transaction (a crash mid-range). */
  faults?: { afterBatch?: (chainId: number, appliedSoFar: number) => void };
};
