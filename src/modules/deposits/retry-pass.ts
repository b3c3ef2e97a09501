import type { DepositsDeps } from './deps.js';
import { depositsRepo } from './repo.js';
import { chainTime, maybeSweep } from './sweep.js';

/** Deposits one pass looks at per chain: the pass runs every minute (workers.ts), so a backlog drains at this rate. */
export const RETRY_BATCH = 200;

/**
 * The deposits pass (worker, every minute per chain): deposits whose next_sweep_at has come on the chain clock get
 * maybeSweep again, each in its own transaction, skipping one another instance holds. That is a send that failed
 * (after its back-off), a refusal by a limit of the day (the next UTC day), or short funds that waited for the
 * deposit's own deadline (late_payment accept: the order expired first). Returns how many sweeps it enqueued.
 */
export async function retryDueSweeps(deps: DepositsDeps, chainId: number, limit = RETRY_BATCH): Promise<number> {
  await deps.chains.get(chainId).clock.refresh(); // one read of the head per pass: "due" is decided on the chain's clock
  const at = chainTime(deps, chainId);
  let sent = 0;
  for (const id of await depositsRepo.dueForRetry(deps.db, chainId, at, limit)) {
    await deps.db.transaction().execute(async (tx) => {
      const dep = await depositsRepo.lockForRetry(tx, id);
      if (!dep || dep.next_sweep_at === null || dep.next_sweep_at > at) return;
      if (await maybeSweep(deps, tx, dep, await depositsRepo.order(tx, id), at)) sent++;
    });
  }
  return sent;
}
