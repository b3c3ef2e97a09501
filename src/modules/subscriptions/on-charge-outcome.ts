import type { Tx } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import { isAuthorized, revokeIntent } from './calldata.js';
import type { SubscriptionsDeps } from './deps.js';
import { subscriptionsRepo, type SubscriptionRow } from './repo.js';
import { RETRY_DELAYS_SECONDS } from './state.js';
import { tryTransition } from './transition.js';

/**
 * Outcome of charge(…): success needs nothing here (the indexer confirms the order from its OrderPaid at depth,
 * and follow-orders.ts moves the schedule). A charge the chain refused (simulation: nothing sent; or mined and
 * reverted — balance, allowance, blocklist, revoked, paused) moved no money: its order fails (order.failed), the
 * subscription goes past_due (subscription.past_due) and the next attempt is due after RETRY_DELAYS_SECONDS on the
 * chain clock; after the last one, canceled (payment_failed) and the permission revoked by the operator.
 */
export const chargeOutcomeHandler = (deps: SubscriptionsDeps) => async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
  if (o.outcome === 'success') return;
  const order = await subscriptionsRepo.orderById(tx, o.refId);
  if (!order?.subscription_id) return;
  if (order.state === 'pending_payment') {
    await deps.orders.transition(tx, order, 'fail', { failure_reason: `subscription charge ${o.outcome}${o.error ? `: ${o.error}` : ''}`, failed_at: deps.clock.now() }, 'order.failed');
  }
  const s = await subscriptionsRepo.lockById(tx, order.subscription_id);
  if (!s || s.charge_order_id !== order.id) return;
  if (s.state !== 'active' && s.state !== 'past_due') {
    await subscriptionsRepo.update(tx, s.id, { charge_order_id: null }, deps.clock.now());
    return;
  }
  await recordAlert(tx, o.chainId, 'subscription_charge_failed', { subscription_id: s.id, order_id: order.id, outcome: o.outcome, error: o.error, tx_hash: o.txHash });
  await dun(deps, tx, s, deps.chains.get(s.chain_id).clock.now());
};

/** One more failed attempt of the current period: past_due and a retry, or canceled after the last. */
export async function dun(deps: Pick<SubscriptionsDeps, 'clock'>, tx: Tx, s: SubscriptionRow, chainNow: Date): Promise<void> {
  const now = deps.clock.now();
  const attempts = s.failed_attempts + 1;
  const delay = RETRY_DELAYS_SECONDS[attempts - 1];
  if (delay === undefined) {
    const canceled = await tryTransition(tx, s, 'cancel', { cancel_reason: 'payment_failed', canceled_at: chainNow, charge_order_id: null, next_charge_at: null, failed_attempts: attempts }, now);
    if (canceled && isAuthorized(s)) {
      await enqueueOperatorTx(tx, revokeIntent(s));
      await subscriptionsRepo.update(tx, s.id, { revoke_requested_at: now }, now);
    }
    return;
  }
  const schedule = { charge_order_id: null, failed_attempts: attempts, next_charge_at: new Date(chainNow.getTime() + delay * 1000) };
  if (!(await tryTransition(tx, s, 'past_due', schedule, now))) await subscriptionsRepo.update(tx, s.id, schedule, now);
}

/** Outcome of revokeAsOperator: success is applied by the indexer (PermissionRevoked); a refusal is an alert. */
export const revokeOutcomeHandler = (deps: Pick<SubscriptionsDeps, 'logger'>) => async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
  if (o.outcome === 'success') return;
  await recordAlert(tx, o.chainId, 'subscription_revoke_failed', { subscription_id: o.refId, outcome: o.outcome, error: o.error, tx_hash: o.txHash });
  deps.logger.warn({ subscription_id: o.refId, outcome: o.outcome, error: o.error }, 'revokeAsOperator not executed');
};
