import type { SubscriptionsDeps } from './deps.js';
import { subscriptionsRepo } from './repo.js';
import { startCharge } from './start-charge.js';

/**
 * Scheduler, on the chain's clock: `indexedUntil` is the time of the block up to which the indexer has applied
 * every log at depth (as the authorization sweeper). A subscription whose next charge (start + k × period, or a
 * dunning retry) is at or before it gets its charge queued (start-charge.ts); a charge therefore never goes out
 * before its period has begun on chain. Returns how many it handled.
 */
export async function chargeDue(deps: SubscriptionsDeps, chainId: number, indexedUntil: Date, batch = 50): Promise<number> {
  const n = await deps.db.transaction().execute(async (tx) => {
    const due = await subscriptionsRepo.lockDue(tx, chainId, indexedUntil, batch);
    for (const s of due) {
      const queued = await startCharge(deps, tx, s, indexedUntil);
      // Nothing to queue (canceled at its end): the row leaves the due set by its state; never loop on it.
      if (queued === null) await subscriptionsRepo.update(tx, s.id, { next_charge_at: null }, deps.clock.now());
    }
    return due.length;
  });
  if (n > 0) {
    deps.logger.info({ chain_id: chainId, count: n }, 'subscription charges due: queued');
    deps.wake();
  }
  return n;
}

/** Links past expires_at unauthorized (indexed chain time): incomplete → expired. */
export async function expireLinks(deps: Pick<SubscriptionsDeps, 'db' | 'clock'>, chainId: number, indexedUntil: Date, batch = 100): Promise<number> {
  return deps.db.transaction().execute(async (tx) => {
    const due = await subscriptionsRepo.lockExpiredLinks(tx, chainId, indexedUntil, batch);
    for (const s of due) await subscriptionsRepo.transition(tx, s.id, 'expire', {}, deps.clock.now());
    return due.length;
  });
}
