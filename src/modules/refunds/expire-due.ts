import type { Db } from '../../db/client.js';
import { indexedUntil } from '../indexer/repo.js';
import type { RouterClient } from '../settlements/router-client.js';
import { failRefund } from './fail.js';
import { refundsRepo } from './repo.js';

/**
 * Worker step per chain: fails open refunds whose deadline is before the chain time the indexer has fully
 * applied: the router refuses them from then on, and a completion before it would already have been indexed.
 * Measured on the chain clock, never the wall clock.
 */
export async function expireDueRefunds(deps: { db: Db; router: RouterClient }, chainId: number): Promise<number> {
  await deps.router.chainNow(chainId); // keeps chains.clock, which signs new refunds' deadlines, up to date
  // The cursor block's time, stored by the indexer with the cursor (the order sweeper reads the same).
  const until = await indexedUntil(deps.db, chainId);
  if (!until) return 0;
  const due = await refundsRepo.pastDeadline(deps.db, chainId, until.time, 100);
  for (const r of due) await deps.db.transaction().execute((tx) => failRefund(tx, r, 'deadline_passed'));
  return due.length;
}
