import type { Address } from 'viem';
import type { InvitationsDeps } from './deps.js';
import { onboardingMessage, serviceDomain } from './message.js';
import { effectiveState } from './serialize.js';
import { findByToken, guardUsable } from './usable.js';

/** GET /v1/merchants/invitations/:token (public): the invitation and, with ?wallet=, the message that wallet signs. */
export async function readPublicInvitation(deps: Pick<InvitationsDeps, 'db' | 'config' | 'clock'>, token: string, wallet?: Address) {
  const inv = await findByToken(deps.db, token);
  const now = deps.clock.now();
  guardUsable(inv, now);
  return {
    id: inv.id,
    state: effectiveState(inv, now),
    external_id: inv.external_id,
    suggested_name: inv.suggested_name,
    chain_id: inv.chain_id,
    platform_name: inv.platform_name,
    expires_at: inv.expires_at.toISOString(),
    message: wallet
      ? onboardingMessage({
        domain: serviceDomain(deps.config), platformName: inv.platform_name, platformId: inv.platform_id, externalId: inv.external_id,
        wallet, chainId: inv.chain_id, reserveBps: inv.reserve_bps, token,
      })
      : null,
  };
}
