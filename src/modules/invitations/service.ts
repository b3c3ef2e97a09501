import type { Address, Hex } from 'viem';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import { newId, newSecret, sha256Hex } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { ChainsService } from '../chains/service.js';
import type { MerchantsService } from '../merchants/service.js';
import type { PlatformsService } from '../platforms/service.js';
import { onboardingMessage, serviceDomain } from './message.js';
import { invitationsRepo, type InvitationRow } from './repo.js';
import { INVITATION_DEFAULT_SECONDS } from './schemas.js';
import { effectiveState, serializeInvitation } from './serialize.js';
import { verifyWalletSignature } from './verify.js';
import { revokeInvitation } from './revoke-invitation.js';

export type CreateInvitationInput = {
  external_id: string;
  suggested_name: string;
  chain_id: number;
  reserve_bps?: number | undefined;
  expires_in_seconds?: number | undefined;
};

/** Tokens are bearer secrets in a URL: only their SHA-256 is stored, like API keys. */
export function createInvitationsService(db: Db, config: Config, platforms: PlatformsService, merchants: MerchantsService, chains: ChainsService) {
  function guardUsable(inv: InvitationRow, now: Date) {
    if (inv.state === 'completed') throw new AppError('invitation_used');
    if (effectiveState(inv, now) === 'expired') throw new AppError('invitation_expired');
  }

  async function readByToken(token: string) {
    const inv = token.startsWith('moi_live_') ? await invitationsRepo.findByTokenHash(db, sha256Hex(token)) : undefined;
    if (!inv) throw new AppError('not_found', 'No such invitation.');
    return inv;
  }

  return {
    async create(platformId: string, input: CreateInvitationInput) {
      const platform = await platforms.get(platformId);
      if (await merchants.findByExternalId(platformId, input.external_id)) {
        throw new AppError('conflict', `A merchant with external_id '${input.external_id}' already exists on this platform.`, 'external_id');
      }
      const token = newSecret('moi_live');
      const expiresAt = new Date(Date.now() + (input.expires_in_seconds ?? INVITATION_DEFAULT_SECONDS) * 1000);
      const secret = { token, url: `${config.dashboardUrl}/onboard/${token}` };
      return db.transaction().execute(async (tx) => {
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
        const body = serializeInvitation(row, secret);
        await recordResponseInTx(tx, 201, body);
        return body;
      });
    },

    /** SPEC: up to the 50 most recent, each with its state and the wallet once completed. */
    async listRecent(platformId: string) {
      const rows = await invitationsRepo.recent(db, platformId, 50);
      return { object: 'list' as const, data: rows.map((r) => serializeInvitation(r)), has_more: false, next_cursor: null };
    },

    async readPublic(token: string, wallet?: Address) {
      const inv = await readByToken(token);
      const now = new Date();
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
            domain: serviceDomain(config), platformName: inv.platform_name, platformId: inv.platform_id, externalId: inv.external_id,
            wallet, chainId: inv.chain_id, reserveBps: inv.reserve_bps, token,
          })
          : null,
      };
    },

    /**
     * Verify the signature (EIP-191 from an EOA, ERC-1271 from a deployed contract wallet, ERC-6492 from a
     * counterfactual one; see verify.ts) against the message rebuilt from our records, on the invitation's
     * chain; an unreachable chain is 503 and changes nothing. Then in one transaction
     * lock the invitation row, re-check it is pending, create the merchant and complete the invitation.
     * Two concurrent completions serialise on the row lock: one merchant, once.
     */
    async complete(token: string, input: { wallet: Address; name: string; signature: Hex }) {
      const inv = await readByToken(token);
      const now = new Date();
      guardUsable(inv, now);
      // An invitation stored for a chain this deployment no longer runs would make a merchant nobody can pay.
      const chain = chains.get(inv.chain_id);
      const message = onboardingMessage({
        domain: serviceDomain(config), platformName: inv.platform_name, platformId: inv.platform_id, externalId: inv.external_id,
        wallet: input.wallet, chainId: inv.chain_id, reserveBps: inv.reserve_bps, token,
      });
      if (!(await verifyWalletSignature(() => chain.publicClient, input.wallet, message, input.signature))) {
        throw new AppError('invalid_signature', 'The signature was not made by this wallet over the onboarding message.', 'signature');
      }
      const result = await db.transaction().execute(async (tx) => {
        const locked = await invitationsRepo.lockByTokenHash(tx, sha256Hex(token));
        if (!locked) throw new AppError('not_found', 'No such invitation.');
        guardUsable(locked, new Date());
        const merchant = await merchants.insert(tx, inv.platform_id, {
          externalId: locked.external_id, name: input.name, wallet: input.wallet,
          chainId: locked.chain_id, reserveBps: locked.reserve_bps, invitationId: locked.id,
        });
        const completed = await invitationsRepo.complete(tx, locked.id, input.wallet, merchant.id);
        if (!completed) throw new AppError('invitation_used');
        return { merchant, invitation: completed };
      });
      return result;
    },

    expireDue: (now = new Date()) => invitationsRepo.expireDue(db, now),

    revoke: (platformId: string, id: string) => revokeInvitation({ db, now: () => new Date() }, platformId, id),
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
