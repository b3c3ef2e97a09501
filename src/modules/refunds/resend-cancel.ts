import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { canMove } from '../../lib/transitions.js';
import { requestRefundCancel } from './request-cancel.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { REFUND_TRANSITIONS } from './state.js';

/** Worker step: a cancellation whose transaction ended without effect is asked again (the refund still open). */
export async function resendRefundCancel(deps: { db: Db; clock: Clock }, r: RefundRow): Promise<void> {
  await deps.db.transaction().execute(async (tx) => {
    const row = await refundsRepo.lockById(tx, r.id);
    if (row && canMove(REFUND_TRANSITIONS, row.state, 'fail') && !row.cancel_tx_id) {
      await requestRefundCancel(tx, row, row.cancel_reason ?? 'cancelled', deps.clock.now());
    }
  });
}
