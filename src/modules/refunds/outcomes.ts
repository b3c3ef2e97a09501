import type { Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { canMove } from '../../lib/transitions.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import { requestRefundCancel } from './request-cancel.js';
import { refundsRepo } from './repo.js';
import { REFUND_TRANSITIONS } from './state.js';

/** After the n-th failed submission, the next one waits RETRY_SCHEDULE_MS[n-1]; past the last, the refund is cancelled. */
export const RETRY_SCHEDULE_MS = [30_000, 120_000, 600_000, 1_800_000, 7_200_000] as const;
/** Router errors after which this signed refund can never succeed: cancelled on chain at once. */
export const PERMANENT_REFUND_ERRORS = new Set(['InvalidSigner', 'OrderExpired', 'RefundExceedsOrder', 'OrderNotPaid', 'ZeroAmount', 'ZeroAddress', 'RefundNotToPayer']);

/**
 * Outcome of a refund the operator sent (operator sender, purpose 'refund'). Success or RefundAlreadyUsed:
 * the indexer resolves it (Refunded completes it; RefundCancelled fails it). A permanent refusal asks for an
 * on-chain cancellation; anything else (EnforcedPause, RPC trouble, a reserve race) keeps the refund pending
 * and schedules the next attempt, until the schedule is exhausted and it is cancelled. Never failed here.
 */
export function refundOutcomeHandler({ logger, clock }: { logger: Logger; clock: Clock }) {
  return async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
    const refund = await refundsRepo.lockById(tx, o.refId);
    if (!refund || !canMove(REFUND_TRANSITIONS, refund.state, 'fail') || refund.operator_tx_id !== o.id) return;
    if (o.outcome === 'success' || o.error === 'RefundAlreadyUsed') return;
    const error = `${o.outcome === 'rejected' ? 'refused in simulation' : `transaction ${o.txHash} reverted`}: ${o.error ?? 'unknown'}`;
    const cleared = (await refundsRepo.update(tx, refund.id, [refund.state], { operator_tx_id: null, last_error: error, submit_lease_until: null }))!;
    if (refund.cancel_requested_at) return;
    const exhausted = refund.attempts > RETRY_SCHEDULE_MS.length;
    if (PERMANENT_REFUND_ERRORS.has(o.error ?? '') || exhausted) {
      await requestRefundCancel(tx, cleared, exhausted ? `retries_exhausted: ${o.error}` : `router refused: ${o.error}`, clock.now());
      logger.warn({ refund_id: refund.id, error: o.error, attempts: refund.attempts }, 'refund cannot be sent; cancelling it on chain');
      return;
    }
    const wait = RETRY_SCHEDULE_MS[Math.max(refund.attempts - 1, 0)]!;
    await refundsRepo.update(tx, refund.id, [refund.state], { next_attempt_at: new Date(clock.ms() + wait) });
    logger.warn({ refund_id: refund.id, error: o.error, attempts: refund.attempts, retry_in_ms: wait }, 'refund not executed; it stays pending and is sent again later');
  };
}

/**
 * Outcome of a cancelRefund (purpose 'refund_cancel'). Success: RefundCancelled will be indexed and fail it.
 * RefundAlreadyUsed: it was executed (Refunded completes it) or cancelled already. Anything else: the
 * cancellation is sent again by the worker.
 */
export function refundCancelOutcomeHandler({ logger }: { logger: Logger }) {
  return async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
    if (o.outcome === 'success' || o.error === 'RefundAlreadyUsed') return;
    const refund = await refundsRepo.lockById(tx, o.refId);
    if (!refund || !canMove(REFUND_TRANSITIONS, refund.state, 'fail') || refund.cancel_tx_id !== o.id) return;
    await refundsRepo.update(tx, refund.id, [refund.state], { cancel_tx_id: null, last_error: `cancellation ${o.outcome}: ${o.error ?? 'unknown'}` });
    logger.warn({ refund_id: refund.id, error: o.error }, 'refund cancellation not executed; it will be sent again');
  };
}
