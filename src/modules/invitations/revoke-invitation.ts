import type { Db } from '../../db/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { invitationsRepo } from './repo.js';
import { serializeInvitation } from './serialize.js';

export type RevokeInvitationDeps = { db: Db; now: () => Date };

/**
 * Revoke a platform's invitation so its token can no longer complete onboarding. The spec's states stay
 * pending / completed / expired: a revoked invitation is `expired` with `revoked_at` set. Revoking one that
 * already expired (by time, by a fresh invitation for the same external_id, or an earlier revoke) changes
 * nothing and answers it as it is; a completed one is 409 (the merchant exists: changes go through support).
 * Another platform's invitation is 404. Completion locks the row (service.ts `complete`), so a revoke and a
 * completion racing each other serialise: exactly one of them wins.
 */
export async function revokeInvitation(deps: RevokeInvitationDeps, platformId: string, id: string) {
  return deps.db.transaction().execute(async (tx) => {
    const revoked = await invitationsRepo.revokePending(tx, platformId, id, deps.now());
    const row = revoked ?? (await invitationsRepo.findById(tx, platformId, id));
    if (!row) throw notFound('invitation');
    if (row.state === 'completed') {
      throw new AppError('invalid_state', `Invitation ${id} is completed: merchant ${row.merchant_id} exists; changes to it go through support.`, 'id');
    }
    const body = serializeInvitation(row);
    await recordResponseInTx(tx, 200, body);
    return body;
  });
}
