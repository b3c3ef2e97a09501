import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/ids.js';
import { canMove } from '../../lib/transitions.js';
import { invitationsRepo, type InvitationRow } from './repo.js';
import { effectiveState } from './serialize.js';
import { INVITATION_TRANSITIONS } from './state.js';

/**
 * A token may still complete onboarding: completed → 409 invitation_used; expired (by time, even before the
 * sweeper wrote it, by a fresh invitation or by a revoke) → 410 invitation_expired.
 */
export function guardUsable(inv: InvitationRow, now: Date): void {
  const state = effectiveState(inv, now);
  if (canMove(INVITATION_TRANSITIONS, state, 'complete')) return;
  throw new AppError(state === 'completed' ? 'invitation_used' : 'invitation_expired');
}

/** Tokens are bearer secrets in a URL: only their SHA-256 is stored (like API keys), and only that is looked up. */
export async function findByToken(db: Db, token: string) {
  const inv = token.startsWith('moi_live_') ? await invitationsRepo.findByTokenHash(db, sha256Hex(token)) : undefined;
  if (!inv) throw new AppError('not_found', 'No such invitation.');
  return inv;
}
