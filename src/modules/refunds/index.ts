import type { Tx } from '../../db/client.js';
import { applyRefundCancelled, type RefundCancelledLog } from './apply-cancelled.js';
import { applyRefunded, type RefundedLog } from './apply-refunded.js';
import { cancelRefund } from './cancel.js';
import { createRefund, type CreateRefundInput } from './create.js';
import type { RefundsDeps } from './deps.js';
import { refundCancelOutcomeHandler, refundOutcomeHandler } from './outcomes.js';
import { getRefund, listRefunds, type ListRefundsQuery } from './read.js';
import { runRefundsWorkerOnce } from './worker.js';

export type { RefundsDeps } from './deps.js';
export type { RefundedLog } from './apply-refunded.js';
export type { CreateRefundInput } from './create.js';
export { REFUND_TTL_SECONDS } from './create.js';

/** The refunds service: each operation lives in its own file; this only binds them to their dependencies. */
export function createRefundsService(deps: RefundsDeps) {
  return {
    /** POST /v1/refunds */
    create: (platformId: string, body: CreateRefundInput) => createRefund(deps, platformId, body),
    /** Chain event Refunded (indexer hook). */
    applyRefunded: (tx: Tx, e: RefundedLog) => applyRefunded(deps, tx, e),
    /** Chain event RefundCancelled (indexer hook): the open refund fails (the only way besides its deadline). */
    applyRefundCancelled: (tx: Tx, e: RefundCancelledLog) => applyRefundCancelled(deps, tx, e),
    /** Operator sender outcome handlers, registered per purpose in services.ts. */
    outcomeHandlers: { refund: refundOutcomeHandler(deps), refund_cancel: refundCancelOutcomeHandler(deps) },
    /** POST /v1/refunds/:id/cancel: asks the router to cancel the signature; failed once RefundCancelled is indexed. */
    cancel: (platformId: string, id: string) => cancelRefund(deps, platformId, id),
    /** One pass of the refund worker: fail refunds past their deadline, check sent ones, send reserve-covered ones. */
    runOnce: () => runRefundsWorkerOnce(deps),
    get: (platformId: string, id: string) => getRefund(deps.db, platformId, id),
    list: (platformId: string, q: ListRefundsQuery) => listRefunds(deps.db, platformId, q),
  };
}

export type RefundsService = ReturnType<typeof createRefundsService>;
