import type { Updateable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { SubscriptionsTable } from '../../db/schema.js';
import { stateError } from '../../lib/transitions.js';
import { emitEvent } from '../events/service.js';
import { subscriptionsRepo, type SubscriptionRow } from './repo.js';
import { EVENT_OF, SUBSCRIPTION_TRANSITIONS, type SubscriptionTrigger } from './state.js';
import { serializeSubscription } from './serialize.js';

/**
 * One state change and its webhook event (outbox), in the caller's transaction: compare-and-set on the
 * trigger's from-states; 409 invalid_state naming the current state when it moved on.
 */
export async function transitionSubscription(tx: Executor, s: SubscriptionRow, trigger: SubscriptionTrigger, set: Updateable<SubscriptionsTable>, now: Date): Promise<SubscriptionRow> {
  const updated = await subscriptionsRepo.transition(tx, s.id, trigger, set, now);
  if (!updated) {
    const current = (await subscriptionsRepo.lockById(tx, s.id))?.state ?? s.state;
    throw stateError(`Subscription ${s.id}`, SUBSCRIPTION_TRANSITIONS, current, trigger);
  }
  const type = EVENT_OF[trigger];
  if (type) await emitEvent(tx, { platformId: updated.platform_id, type, data: { object: serializeSubscription(updated) } });
  return updated;
}

/** The same, for callers that only want it when it applies (the indexer, the scheduler): undefined otherwise, nothing written. */
export async function tryTransition(tx: Executor, s: SubscriptionRow, trigger: SubscriptionTrigger, set: Updateable<SubscriptionsTable>, now: Date) {
  if (!(SUBSCRIPTION_TRANSITIONS[trigger].from as readonly string[]).includes(s.state)) return undefined;
  return transitionSubscription(tx, s, trigger, set, now);
}
