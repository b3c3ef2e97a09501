import type { Address } from 'viem';
import type { Caller } from '../orders/index.js';
import { applyCharged, applyPermissionRevoked } from './apply-manager-events.js';
import { authorizeSubscription, type AuthorizeInput } from './authorize.js';
import { cancelSubscription } from './cancel.js';
import { chargeDue, expireLinks } from './charge-due.js';
import { createSubscription, type CreateSubscriptionInput } from './create.js';
import type { SubscriptionsDeps } from './deps.js';
import { chargeOutcomeHandler, revokeOutcomeHandler } from './on-charge-outcome.js';
import { getSubscription, listSubscriptions } from './read.js';
import { readAuthorization } from './read-authorization.js';
import type { ListSubscriptionsFilters } from './schemas.js';
import { billingState, checkClockMove } from './test-clock.js';

export type { SubscriptionsDeps } from './deps.js';
export type { ChargedEvent, PermissionRevokedEvent } from './apply-manager-events.js';
export { subscriptionsFollowOrders } from './follow-orders.js';

/**
 * Subscriptions (issue 30, docs/subscriptions.md): each operation is a function of its own file, bound here. Charges
 * are orders paid by the operator's charge(…) through the SubscriptionManager; the chain's events move them.
 */
export function createSubscriptionsService(deps: SubscriptionsDeps) {
  return {
    create: (caller: Caller, input: CreateSubscriptionInput) => createSubscription(deps, caller, input),
    get: (platformId: string, id: string) => getSubscription(deps, platformId, id),
    list: (platformId: string, q: ListSubscriptionsFilters) => listSubscriptions(deps, platformId, q),
    cancel: (platformId: string, id: string, body: { at_period_end?: boolean | undefined }) => cancelSubscription(deps, platformId, id, body),
    readAuthorization: (token: string, q: { payer?: Address | undefined } = {}) => readAuthorization(deps, token, q),
    authorize: (token: string, input: AuthorizeInput) => authorizeSubscription(deps, token, input),
    chargeDue: (chainId: number, indexedUntil: Date, batch?: number) => chargeDue(deps, chainId, indexedUntil, batch),
    expireLinks: (chainId: number, indexedUntil: Date) => expireLinks(deps, chainId, indexedUntil),
    outcomeHandlers: { subscription_charge: chargeOutcomeHandler(deps), subscription_revoke: revokeOutcomeHandler(deps) },
    applyPermissionRevoked: applyPermissionRevoked(deps.clock),
    applyCharged,
    /** The devnet's test clock (test-helpers): the bound of a move and the platform's next charge. */
    checkClockMove: (platformId: string, to: number) => checkClockMove(deps, platformId, to),
    billingState: (platformId: string) => billingState(deps, platformId),
  };
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;
