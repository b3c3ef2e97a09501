import type { Address, Hex } from 'viem';
import { completeInvitation } from './complete.js';
import { createInvitation, type CreateInvitationInput } from './create.js';
import type { InvitationsDeps } from './deps.js';
import { readPublicInvitation } from './read-public.js';
import { invitationsRepo } from './repo.js';
import { revokeInvitation } from './revoke-invitation.js';
import { serializeInvitation } from './serialize.js';

export type { CreateInvitationInput } from './create.js';
export type { InvitationsDeps } from './deps.js';

/** The invitations service: each operation lives in its own file; this only binds them to their dependencies. */
export function createInvitationsService(deps: InvitationsDeps) {
  const { db, clock } = deps;
  return {
    create: (platformId: string, input: CreateInvitationInput) => createInvitation(deps, platformId, input),
    /** SPEC: up to the 50 most recent, each with its state and the wallet once completed. */
    async listRecent(platformId: string) {
      const now = clock.now();
      const rows = await invitationsRepo.recent(db, platformId, 50);
      return { object: 'list' as const, data: rows.map((r) => serializeInvitation(r, now)), has_more: false, next_cursor: null };
    },
    readPublic: (token: string, wallet?: Address) => readPublicInvitation(deps, token, wallet),
    complete: (token: string, input: { wallet: Address; name: string; signature: Hex }) => completeInvitation(deps, token, input),
    /** Sweeper: pending invitations past expiry (on the service clock) become expired. */
    expireDue: (now = clock.now()) => invitationsRepo.expireDue(db, now),
    revoke: (platformId: string, id: string) => revokeInvitation(deps, platformId, id),
  };
}

export type InvitationsService = ReturnType<typeof createInvitationsService>;
