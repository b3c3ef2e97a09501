import type { Db, Executor } from '../../db/client.js';
import { balanceRepo } from './repo.js';

/** Closing points fall on whole minutes: the live part a read sums is the last minute or two of payments and refunds. */
const STEP_MS = 60_000;

/**
 * Moves the platform's closing point up to the start of the minute that the indexed chain time of every chain has
 * reached, adding the payments and refunds in between to the closed sums (migration 016). Payments and refunds
 * carry their block time and the indexer applies blocks in order, so nothing can still arrive before that point.
 * Cheap when there is nothing to close (one indexed read); otherwise one transaction holding the closing row's
 * lock, so concurrent closers (one worker per instance) close each window once. The first call for a platform closes
 * its whole history.
 */
export async function closeBalances(db: Db, platformId: string): Promise<void> {
  const { indexed, closed } = await balanceRepo.closingState(db, platformId);
  if (indexed === null) return;
  const target = new Date(Math.floor(indexed.getTime() / STEP_MS) * STEP_MS);
  if (closed !== null && closed >= target) return;
  await db.transaction().execute(async (tx) => {
    const from = await balanceRepo.lockClosing(tx, platformId);
    if (from >= target) return;
    await balanceRepo.close(tx, platformId, from, target);
  });
}

export const NEVER_CLOSED = new Date(0);

/**
 * Runs `read` in one REPEATABLE READ snapshot with the platform's closing point as of that snapshot: the closed
 * sums and the live part after it come from the same state, so a closing committing meanwhile can neither double
 * nor drop a payment.
 */
export function inClosedSnapshot<T>(db: Db, platformId: string, read: (tx: Executor, closedUntil: Date) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').execute(async (tx) => {
    await balanceRepo.planForParameters(tx);
    return read(tx, (await balanceRepo.closing(tx, platformId)) ?? NEVER_CLOSED);
  });
}
