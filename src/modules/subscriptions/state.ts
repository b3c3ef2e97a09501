import type { SubscriptionState } from '../../db/schema.js';
import type { Transitions } from '../../lib/transitions.js';
import type { EventType } from '../events/types.js';

/**
 * Subscription states (issue 30): incomplete → active ⇄ past_due → canceled; incomplete → expired when the link
 * expires unauthorized. The one table the API, the scheduler, the operator outcomes and the indexer share.
 *   activate  — the payer's authorization is verified and stored (the first charge is queued with it)
 *   past_due  — a charge failed (simulation or revert): dunning retries on the chain clock
 *   recover   — a charge of a past_due subscription confirmed (subscription.activated again)
 *   cancel    — by the platform, at period end, after the last failed retry, at the permission's end, or the payer's
 *               on-chain revocation (which the indexer applies whatever the state, hence incomplete too)
 *   expire    — the authorization link passed expires_at unused
 */
export type SubscriptionTrigger = 'activate' | 'past_due' | 'recover' | 'cancel' | 'expire';

export const SUBSCRIPTION_TRANSITIONS = {
  activate: { from: ['incomplete'], to: 'active' },
  past_due: { from: ['active'], to: 'past_due' },
  recover: { from: ['past_due'], to: 'active' },
  cancel: { from: ['incomplete', 'active', 'past_due'], to: 'canceled' },
  expire: { from: ['incomplete'], to: 'expired' },
} as const satisfies Transitions<SubscriptionState, SubscriptionTrigger>;

/** The webhook event each transition emits (outbox row in the transition's transaction); expiry emits none. */
export const EVENT_OF: Record<SubscriptionTrigger, EventType | null> = {
  activate: 'subscription.activated',
  past_due: 'subscription.past_due',
  recover: 'subscription.activated',
  cancel: 'subscription.canceled',
  expire: null,
};

/**
 * Dunning: after a failed charge the next attempt waits this long (chain clock); after the last one fails the
 * subscription is canceled with cancel_reason payment_failed.
 */
export const RETRY_DELAYS_SECONDS = [3_600, 86_400, 3 * 86_400] as const;
