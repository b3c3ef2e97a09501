import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import { retentionRepo } from './repo.js';

/** Rows deleted per statement: short transactions, no long lock on the attempts the deliverer writes. */
export const PRUNE_BATCH = 1_000;
/** Batches per pass at most (500,000 rows); a larger backlog is finished by the next passes. */
export const PRUNE_MAX_BATCHES = 500;

/**
 * Webhook attempt retention (WEBHOOK_ATTEMPT_RETENTION_DAYS): each attempt row keeps the headers sent and
 * answered and up to 4 KB of the answer's body, so they are deleted once older than the retention, in batches,
 * oldest first, and only those of deliveries that are over (succeeded, or failed for good). A delivery's summary
 * (attempts, last_status, last_error, last_attempt_at) lives on the delivery row and is not changed;
 * GET /v1/webhooks/deliveries/{id} lists in attempt_history the attempts that remain. Returns the rows deleted.
 */
export async function pruneAttempts(db: Db, o: { before: Date; log: Logger; batch?: number; maxBatches?: number }): Promise<number> {
  const batch = o.batch ?? PRUNE_BATCH;
  let deleted = 0;
  for (let i = 0; i < (o.maxBatches ?? PRUNE_MAX_BATCHES); i++) {
    const n = await retentionRepo.deleteAttempts(db, o.before, batch);
    deleted += n;
    if (n < batch) break;
  }
  if (deleted > 0) o.log.info({ deleted, before: o.before.toISOString() }, 'webhook attempts past retention deleted');
  return deleted;
}
