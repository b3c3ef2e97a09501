import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import { stateError } from '../../lib/transitions.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { invitationsRepo } from './repo.js';
import { serializeInvitation } from './serialize.js';
import { INVITATION_TRANSITIONS } from './state.js';

export type RevokeInvitationDeps = { db: Db; clock: Clock };

/**
 * POST /v1/merchants/invitations/:id/revoke. Revoke a platform's invitation so its token can no longer
 * complete onboarding. The spec's states stay pending / completed / expired: a revoked invitation is
 * `expired` with `revoked_at` set. Revoking one that already expired (by time, by a fresh invitation for the same external_id, or an earlier revoke) changes
 * nothing and answers it as it is; a completed one is 409 (the merchant exists: changes go through support).
 * Another platform's invitation is 404. Completion locks the row (complete.ts), so a revoke and a
 * completion racing each other serialise: exactly one of them wins.
 */
export async function revokeInvitation(deps: RevokeInvitationDeps, platformId: string, id: string) {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const revoked = await invitationsRepo.revokePending(tx, platformId, id, now);
    const row = revoked ?? (await invitationsRepo.findById(tx, platformId, id));
    if (!row) throw notFound('invitation');
    // Only `completed` refuses: an expired one is answered as it is (revoking again changes nothing).
    if (row.state === 'completed') {
      const e = stateError(`Invitation ${id}`, INVITATION_TRANSITIONS, row.state, 'expire', 'revoking');
      throw new AppError('invalid_state', `${e.message.slice(0, -1)} (merchant ${row.merchant_id} exists; changes to it go through support).`, 'id');
    }
    const body = serializeInvitation(row, now);
    await recordResponseInTx(tx, 200, body);
    return body;
  });
}
