import type { Executor } from '../../db/client.js';
import { operatorTxsRepo } from './repo.js';

/**
 * Withdraws an owner's intents that are still only queued (never signed, so never on the wire): rejected with
 * `error`, in the owner's transaction. A compare-and-set from `queued` makes it race-free against the sender: if the
 * sender recorded the intent first, it stays (it may land) and is not counted; if the withdrawal commits first, the
 * sender's record of it fails and its pass rolls back (no nonce spent). No outcome handler runs: the owner changes its
 * own rows in the same transaction. Returns how many were withdrawn.
 */
export async function withdrawQueuedIntents(tx: Executor, purpose: string, refId: string, error: string): Promise<number> {
  let withdrawn = 0;
  for (const t of await operatorTxsRepo.forRef(tx, purpose, refId)) {
    if (t.state !== 'queued') continue;
    if (await operatorTxsRepo.finish(tx, t.id, 'queued', { state: 'rejected', outcome: 'rejected', error })) withdrawn++;
  }
  return withdrawn;
}
