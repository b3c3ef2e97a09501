import type { InvitationRow } from './repo.js';

/** A pending invitation past its expiry reads as expired even before the sweeper writes it. */
export const effectiveState = (r: InvitationRow, now: Date) =>
  r.state === 'pending' && r.expires_at.getTime() <= now.getTime() ? 'expired' : r.state;

/** `now` (the service clock) decides whether a pending invitation already reads as expired. */
export const serializeInvitation = (r: InvitationRow, now: Date, secret?: { token: string; url: string }) => ({
  id: r.id,
  object: 'merchant_invitation' as const,
  ...(secret ?? {}),
  expires_at: r.expires_at.toISOString(),
  external_id: r.external_id,
  suggested_name: r.suggested_name,
  chain_id: r.chain_id,
  reserve_bps: r.reserve_bps,
  state: effectiveState(r, now),
  wallet: r.wallet,
  merchant_id: r.merchant_id,
  created_at: r.created_at.toISOString(),
  completed_at: r.completed_at?.toISOString() ?? null,
  revoked_at: r.revoked_at?.toISOString() ?? null,
});
