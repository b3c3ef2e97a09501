import type { Db, Tx } from '../../db/client.js';
import { leaseRepo } from './lease.js';
import { indexerRepo } from './repo.js';

/**
 * Runs fn as the one writer of this chain's cursor: advisory lock, cursor unchanged, and (fenced) lease and
 * enabled still ours. Null when any of them fails (another instance is applying, or has moved on).
 */
export function guarded<T>(db: Db, chainId: number, cursor: bigint, holder: string | null, fn: (tx: Tx) => Promise<T>): Promise<T | null> {
  return db.transaction().execute(async (tx) => {
    if (!(await indexerRepo.tryLock(tx, chainId))) return null; // another instance is applying this chain
    if ((await indexerRepo.cursorForUpdate(tx, chainId))?.block !== cursor) return null; // it already moved on
    if (holder !== null && !(await leaseRepo.stillHeld(tx, chainId, holder))) return null; // stopped, or taken over
    return fn(tx);
  });
}
