import type { Address, Hex } from 'viem';
import type { Executor } from '../../db/client.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { SubscriptionsDeps } from './deps.js';
import { chargeIntent, isAuthorized, revokeIntent } from './calldata.js';
import { subscriptionsRepo, type SubscriptionRow } from './repo.js';
import { tryTransition } from './transition.js';

/** A charge order may be paid until a day after it was queued (chain clock); the expiry sweeper ends it after. */
const CHARGE_ORDER_SECONDS = 86_400;

/** The period a charge sent now pays: the manager charges index ⌊(block time − start) / period⌋, never an earlier one. */
export const periodIndexAt = (s: Pick<SubscriptionRow, 'start_at' | 'period_seconds' | 'next_period'>, at: Date) =>
  Math.max(s.next_period, Math.floor((at.getTime() - s.start_at!.getTime()) / 1000 / s.period_seconds));

/**
 * Queues the charge of the subscription's due period: its order (orders module, at the signed terms) and the
 * operator's charge(…) intent (chargeWithPermit for the first one when the payer gave a permit: used once only) in the caller's transaction, with charge_order_id set: committed together or not at all,
 * and one live order per period (orders_subscription_period_live) — the manager's PeriodAlreadyCharged is the last line.
 * Past the permission's last period, or at the end of a period that was to be the last (cancel_at_period_end), the
 * subscription is canceled instead. Returns the order id, or null when none was queued.
 */
export async function startCharge(deps: SubscriptionsDeps, tx: Executor, s: SubscriptionRow, chainNow: Date): Promise<string | null> {
  if (!isAuthorized(s) || !s.start_at) return null;
  const period = periodIndexAt(s, chainNow);
  const ended = (s.max_periods !== null && period >= s.max_periods) || (s.end_at !== null && chainNow >= s.end_at);
  if (ended || s.cancel_at_period_end) {
    const reason = ended ? 'ended' : 'canceled_by_platform';
    const canceled = await tryTransition(tx, s, 'cancel', { cancel_reason: reason, canceled_at: chainNow, next_charge_at: null }, deps.clock.now());
    if (canceled && !ended) {
      await enqueueOperatorTx(tx, revokeIntent(s));
      await subscriptionsRepo.update(tx, s.id, { revoke_requested_at: deps.clock.now() }, deps.clock.now());
    }
    return null;
  }
  const row = await deps.orders.prepareCharge({
    platformId: s.platform_id, merchantId: s.merchant_id, merchantExternalId: s.merchant_external_id, chainId: s.chain_id,
    orderNo: `${s.id}/${period}/${s.failed_attempts}`, amount: s.amount, serviceFeeBps: s.service_fee_bps, platformFeeBps: s.platform_fee_bps,
    reserveBps: s.reserve_bps, merchantWallet: s.merchant_wallet as Address, platformWallet: s.platform_wallet as Address, payer: s.payer as Address,
    deadline: new Date(chainNow.getTime() + CHARGE_ORDER_SECONDS * 1000), metadata: s.metadata, subscriptionId: s.id, period,
  });
  const order = await deps.orders.insertPrepared(tx, row);
  await enqueueOperatorTx(tx, chargeIntent(s, order.id, order.onchain_id as Hex, Math.floor(chainNow.getTime() / 1000)));
  // The stored permit goes into this one charge and is dropped: a later charge never re-applies it, so a payer who
  // lowered the allowance (approve(manager, 0)) after signing is not overruled by their older signature.
  await subscriptionsRepo.update(tx, s.id, { charge_order_id: order.id, permit: null }, deps.clock.now());
  return order.id;
}
