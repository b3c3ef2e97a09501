import type { Db } from '../../db/client.js';
import { ordersRepo } from './repo.js';

/** Deltas folded per statement: one short transaction each, so no fold holds many platforms' count rows for long. */
export const FOLD_BATCH = 5_000;
/** Statements per pass at most (100,000 deltas): a backlog after downtime is folded over a few passes, not one long one. */
const MAX_BATCHES = 20;

/**
 * The order-counts worker's pass (src/workers.ts): folds the deltas the trigger on orders appended (migration 039)
 * into each platform's counts and gross per day and minute, and drops the minutes past 3 days. Reads never write:
 * they add the deltas not folded yet, so the summary stays exact when this worker lags or does not run (only slower:
 * more deltas to add). Several instances may run it at once: each
 * statement takes the deltas no other folder holds. Returns how many deltas it folded.
 */
export async function foldOrderCounts(db: Db, batch = FOLD_BATCH): Promise<number> {
  let folded = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const n = await ordersRepo.foldCounts(db, batch);
    folded += n;
    if (n < batch) break;
  }
  await ordersRepo.pruneGrossMinutes(db);
  return folded;
}
