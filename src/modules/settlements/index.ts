import type { Tx } from '../../db/client.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import { applyBatchSettled, type BatchSettledLog } from './apply-batch-settled.js';
import { applyReserveReleaseFailed } from './apply-reserve-release-failed.js';
import { applyReserveReleased, type ReserveReleaseLog } from './apply-reserve-released.js';
import type { SettlementsDeps } from './deps.js';
import { onSettlementOutcome } from './on-outcome.js';
import { getSettlement, listSettlements } from './read.js';
import { runSettlementBatches } from './run-batch.js';

export type { SettlementsDeps } from './deps.js';
export type { ReserveReleaseLog } from './apply-reserve-released.js';
export type { BatchSettledLog } from './apply-batch-settled.js';
export { MAX_BATCH_SIZE } from './run-batch.js';

/** The settlements service: each operation lives in its own file; this only binds them to their dependencies. */
export function createSettlementsService(deps: SettlementsDeps) {
  return {
    /** Operator sender outcome of a settleBatch (purpose 'settlement'). */
    onOutcome: (tx: Tx, o: OperatorTxOutcome) => onSettlementOutcome(deps, tx, o),
    /** Chain events (indexer hooks). */
    applyReserveReleased: (tx: Tx, e: ReserveReleaseLog) => applyReserveReleased(deps, tx, e),
    applyReserveReleaseFailed: (tx: Tx, e: ReserveReleaseLog) => applyReserveReleaseFailed(deps, tx, e),
    applyBatchSettled: (tx: Tx, e: BatchSettledLog) => applyBatchSettled(deps, tx, e),
    /** One worker pass: batch the orders whose reserve hold has passed on the chain clock. */
    runOnce: () => runSettlementBatches(deps),
    list: (platformId: string, q: { limit: number; cursor?: string | undefined }) => listSettlements(deps.db, platformId, q),
    get: (platformId: string, id: string) => getSettlement(deps.db, platformId, id),
  };
}

export type SettlementsService = ReturnType<typeof createSettlementsService>;
