import type { Address, Hex } from 'viem';
import { AppError } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/ids.js';
import type { InvitationsDeps } from './deps.js';
import { onboardingMessage, serviceDomain } from './message.js';
import { invitationsRepo } from './repo.js';
import { findByToken, guardUsable } from './usable.js';
import { verifyWalletSignature } from './verify.js';

/**
 * POST /v1/merchants/invitations/:token/complete (public). Verify the signature (EIP-191 from an EOA, ERC-1271
 * from a deployed contract wallet, ERC-6492 from a counterfactual one; see verify.ts) against the message
 * rebuilt from our records, on the invitation's chain; an unreachable chain is 503 and changes nothing. Then
 * in one transaction lock the invitation row, re-check it is pending, create the merchant and complete the
 * invitation. Two concurrent completions serialise on the row lock: one merchant, once.
 */
export async function completeInvitation(deps: InvitationsDeps, token: string, input: { wallet: Address; name: string; signature: Hex }) {
  const inv = await findByToken(deps.db, token);
  guardUsable(inv, deps.clock.now());
  // An invitation stored for a chain this deployment no longer runs would make a merchant nobody can pay.
  const chain = deps.chains.get(inv.chain_id);
  const message = onboardingMessage({
    domain: serviceDomain(deps.config), platformName: inv.platform_name, platformId: inv.platform_id, externalId: inv.external_id,
    wallet: input.wallet, chainId: inv.chain_id, reserveBps: inv.reserve_bps, token,
  });
  if (!(await verifyWalletSignature(() => chain.publicClient, input.wallet, message, input.signature))) {
    throw new AppError('invalid_signature', 'The signature was not made by this wallet over the onboarding message.', 'signature');
  }
  return deps.db.transaction().execute(async (tx) => {
    const locked = await invitationsRepo.lockByTokenHash(tx, sha256Hex(token));
    if (!locked) throw new AppError('not_found', 'No such invitation.');
    const now = deps.clock.now();
    guardUsable(locked, now);
    const merchant = await deps.merchants.insert(tx, inv.platform_id, {
      externalId: locked.external_id, name: input.name, wallet: input.wallet,
      chainId: locked.chain_id, reserveBps: locked.reserve_bps, invitationId: locked.id,
    });
    const completed = await invitationsRepo.complete(tx, locked.id, input.wallet, merchant.id, now);
    if (!completed) throw new AppError('invitation_used');
    return { merchant, invitation: completed };
  });
}
