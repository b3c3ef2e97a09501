import type { InvitationsTable } from '../../db/schema.js';
import type { Transitions } from '../../lib/transitions.js';

type InvitationState = InvitationsTable['state'];

/** SPEC §3: pending → completed (signature verified) or expired (time, a fresh invitation for the external_id, revoke). */
export const INVITATION_TRANSITIONS = {
  complete: { from: ['pending'], to: 'completed' },
  expire: { from: ['pending'], to: 'expired' },
} as const satisfies Transitions<InvitationState, 'complete' | 'expire'>;
