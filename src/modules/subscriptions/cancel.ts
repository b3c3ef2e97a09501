import type { Tx } from '../../db/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { stateError } from '../../lib/transitions.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import { withdrawQueuedIntents } from '../operator-txs/withdraw.js';
import { isAuthorized, revokeIntent } from './calldata.js';
import type { SubscriptionsDeps } from './deps.js';
import { subscriptionsRepo } from './repo.js';
import { serializeSubscription, type SerializedSubscription } from './serialize.js';
import { SUBSCRIPTION_TRANSITIONS } from './state.js';
import { transitionSubscription } from './transition.js';

/**
 * POST /v1/subscriptions/{id}/cancel. At once: canceled (canceled_by_platform, subscription.canceled) and, for an
 * authorized one, the operator's revokeAsOperator(hash) queued in the same transaction, so the permission is dead
 * on chain too. A charge still only queued is withdrawn (its order fails, nothing was sent); one already signed is on
 * the wire ahead of the revoke and may still land (docs/subscriptions.md). at_period_end: no charge after the
 * current period; the scheduler cancels (and revokes) when it ends. Another platform's subscription is 404.
 */
export async function cancelSubscription(deps: SubscriptionsDeps, platformId: string, id: string, body: { at_period_end?: boolean | undefined }): Promise<SerializedSubscription> {
  const out = await deps.db.transaction().execute(async (tx) => {
    const s = await subscriptionsRepo.lockOfPlatform(tx, platformId, id);
    if (!s) throw notFound('subscription');
    if (!(SUBSCRIPTION_TRANSITIONS.cancel.from as readonly string[]).includes(s.state)) throw stateError(`Subscription ${s.id}`, SUBSCRIPTION_TRANSITIONS, s.state, 'cancel');
    const now = deps.clock.now();
    let row;
    if (body.at_period_end && s.state !== 'incomplete') {
      if (s.cancel_at_period_end) throw new AppError('invalid_state', `Subscription ${s.id} is already set to cancel at ${s.current_period_end?.toISOString()}.`);
      row = await subscriptionsRepo.update(tx, s.id, { cancel_at_period_end: true }, now);
    } else {
      const chainNow = deps.chains.get(s.chain_id).clock.now();
      row = await transitionSubscription(tx, s, 'cancel', { cancel_reason: 'canceled_by_platform', canceled_at: chainNow, next_charge_at: null }, now);
      if (s.charge_order_id) row = await withdrawCharge(deps, tx, s.id, s.charge_order_id) ?? row;
      if (isAuthorized(s)) {
        await enqueueOperatorTx(tx, revokeIntent(s));
        row = await subscriptionsRepo.update(tx, s.id, { revoke_requested_at: now }, now);
      }
    }
    const answer = serializeSubscription(row);
    await recordResponseInTx(tx, 200, answer);
    return answer;
  });
  deps.wake();
  return out;
}

/** The charge queued for this subscription, if never sent: withdrawn, its order failed (order.failed), charge_order_id cleared. */
async function withdrawCharge(deps: SubscriptionsDeps, tx: Tx, subscriptionId: string, orderId: string) {
  if ((await withdrawQueuedIntents(tx, 'subscription_charge', orderId, 'withdrawn: the subscription was canceled before the charge was sent')) === 0) return null;
  const order = await subscriptionsRepo.orderById(tx, orderId);
  if (order?.state === 'pending_payment') {
    await deps.orders.transition(tx, order, 'fail', { failure_reason: 'subscription canceled before the charge was sent', failed_at: deps.clock.now() }, 'order.failed');
  }
  return subscriptionsRepo.update(tx, subscriptionId, { charge_order_id: null }, deps.clock.now());
}
