import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import { canMove, stateError } from '../../lib/transitions.js';
import { requestRefundCancel } from './request-cancel.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { REFUND_TRANSITIONS } from './state.js';

/**
 * POST /v1/refunds/:id/cancel. A platform cancels its own open refund (pending or requires_funding): a cancelRefund is enqueued for the
 * operator sender and the refund stays open (`cancellation: 'pending'`) until RefundCancelled is indexed;
 * if the refund executes first, it completes instead. Asking again changes nothing. `created` says whether
 * this call asked (202) or one was already pending (200).
 */
export async function cancelRefund(deps: { db: Db; clock: Clock }, platformId: string, id: string): Promise<{ refund: RefundRow; created: boolean }> {
  return deps.db.transaction().execute(async (tx) => {
    const refund = await refundsRepo.lockForPlatform(tx, platformId, id);
    if (!refund) throw notFound('refund');
    if (!canMove(REFUND_TRANSITIONS, refund.state, 'fail')) throw stateError(`Refund ${refund.id}`, REFUND_TRANSITIONS, refund.state, 'fail', 'cancelling');
    if (refund.cancel_requested_at) return { refund, created: false };
    return { refund: await requestRefundCancel(tx, refund, 'cancelled', deps.clock.now()), created: true };
  });
}
