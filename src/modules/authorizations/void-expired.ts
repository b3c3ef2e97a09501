import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import { voidIntent } from './calldata.js';
import type { AuthorizationsDeps } from './deps.js';
import { authorizationsRepo } from './repo.js';

/**
 * Sweeper, on the chain's clock: `indexedUntil` is the time of the block up to which the indexer has applied
 * every log at depth. An authorization whose capture_before is at or before it can never be captured (the
 * router needs block time < captureDeadline, and every block before it has been applied without a capture), so
 * the service gives it back: voidAuthorization, once per order, void_reason authorization_expired. A capture
 * still in flight then fails (CaptureExpired) and the void lands. Returns how many it asked for.
 */
export async function voidExpiredAuthorizations(deps: AuthorizationsDeps, chainId: number, indexedUntil: Date, batch = 100): Promise<number> {
  const n = await deps.db.transaction().execute(async (tx) => {
    const due = await authorizationsRepo.lockDueForVoid(tx, chainId, indexedUntil, batch);
    for (const order of due) {
      await enqueueOperatorTx(tx, voidIntent(order));
      await authorizationsRepo.markVoidRequested(tx, order.id, 'authorization_expired', deps.clock.now());
    }
    return due.length;
  });
  if (n > 0) {
    deps.logger.info({ chain_id: chainId, count: n }, 'authorizations past capture_before: voids queued');
    deps.wake();
  }
  return n;
}
