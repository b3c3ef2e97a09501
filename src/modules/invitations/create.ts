import { AppError } from '../../lib/errors.js';
import { newId, newSecret, sha256Hex } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { InvitationsDeps } from './deps.js';
import { invitationsRepo } from './repo.js';
import { INVITATION_DEFAULT_SECONDS } from './schemas.js';
import { serializeInvitation } from './serialize.js';

export type CreateInvitationInput = {
  external_id: string;
  suggested_name: string;
  chain_id: number;
  reserve_bps?: number | undefined;
  expires_in_seconds?: number | undefined;
};

/**
 * POST /v1/merchants/invitations. A fresh invitation for an external_id expires the pending one (SPEC §3);
 * the token is shown once, and only its SHA-256 is stored.
 */
export async function createInvitation(deps: InvitationsDeps, platformId: string, input: CreateInvitationInput) {
  const platform = await deps.platforms.get(platformId);
  if (await deps.merchants.findByExternalId(platformId, input.external_id)) {
    throw new AppError('conflict', `A merchant with external_id '${input.external_id}' already exists on this platform.`, 'external_id');
  }
  const token = newSecret('moi_live');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + (input.expires_in_seconds ?? INVITATION_DEFAULT_SECONDS) * 1000);
  const secret = { token, url: `${deps.config.dashboardUrl}/onboard/${token}` };
  return deps.db.transaction().execute(async (tx) => {
    await invitationsRepo.expirePendingFor(tx, platformId, input.external_id);
    const row = await invitationsRepo.insert(tx, {
      id: newId('inv'),
      platform_id: platformId,
      token_hash: sha256Hex(token),
      external_id: input.external_id,
      suggested_name: input.suggested_name,
      chain_id: input.chain_id,
      reserve_bps: input.reserve_bps ?? platform.default_reserve_bps,
      state: 'pending',
      expires_at: expiresAt,
    });
    // With the row: a retry after a crash replays this token instead of expiring it with a second invitation.
    const body = serializeInvitation(row, now, secret);
    await recordResponseInTx(tx, 201, body);
    return body;
  });
}
