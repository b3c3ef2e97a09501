/**
 * The refund worker. Every step is a short transaction; chain reads happen outside any transaction, so an
 * embedded single-connection database is never held while waiting on an RPC. Operator transactions go
 * through the operator sender's outbox (modules/operator-txs): the worker only enqueues them.
 */
import { describeError } from '../../lib/redact-urls.js';
import type { RefundsDeps } from './deps.js';
import { expireDueRefunds } from './expire-due.js';
import { refundsRepo } from './repo.js';
import { resendRefundCancel } from './resend-cancel.js';
import { submitRefund } from './submit.js';

/** A claimed refund is only read and enqueued (seconds); a claim left by a dead instance lapses after this. */
const LEASE_MS = 30_000;

/** One pass: fail refunds past their deadline, re-ask lost cancellations, send the reserve-covered ones. */
export async function runRefundsWorkerOnce(deps: RefundsDeps): Promise<void> {
  const { db, chains, router, logger, clock } = deps;
  // Per-item failures are logged, never thrown, so one bad refund never blocks the others.
  const each = async <T extends { id: string }>(items: T[], what: string, fn: (item: T) => Promise<unknown>) => {
    for (const item of items) {
      await fn(item).catch((err: unknown) => logger.warn({ id: item.id, err: describeError(err) }, `refund worker: ${what} failed`));
    }
  };
  await each(chains.list().map((c) => ({ id: String(c.chainId), chainId: c.chainId })), 'expiry', (c) => expireDueRefunds(deps, c.chainId));
  if (!router.hasOperator()) return;
  await each(await refundsRepo.cancelsToSend(db, 50), 'cancellation', (r) => resendRefundCancel(deps, r));
  await each(await refundsRepo.claimUnsent(db, clock.now(), LEASE_MS, 20), 'submission', (r) => submitRefund(deps, r));
}
