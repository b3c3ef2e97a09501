import type { Executor } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { OrderPaidEvent } from './paid-event.js';
import type { PaidCheckRow } from './repo.js';
import { canTransition, type OrderTrigger } from './state.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The trigger an OrderPaid applies: `paid` for an automatic order, `capture` for a manual one (its OrderPaid is
 * the second half of a capture: OrderCaptured, recorded just before in the same transaction, came first).
 */
export const paidTrigger = (order: Pick<PaidCheckRow, 'capture_method'>): OrderTrigger => (order.capture_method === 'manual' ? 'capture' : 'paid');

/**
 * The fields of a payment that differ from what the service agreed (empty: it matches to the unit). For an
 * automatic order that is the signed order; for a manual one the capture recorded from OrderCaptured: the same
 * transaction, the captured amount (≤ authorized, checked there) and the split the service computes of it.
 */
export function paidMismatches(order: PaidCheckRow, ev: OrderPaidEvent): string[] {
  const manual = order.capture_method === 'manual';
  return [
    order.chain_id !== ev.chainId && 'chain_id',
    !same(order.token_address, ev.token) && 'token',
    (manual ? order.amount_captured : order.amount) !== ev.amount && 'amount',
    order.service_fee !== ev.serviceFee && 'service_fee',
    order.platform_fee !== ev.platformFee && 'platform_fee',
    order.reserve_hold !== ev.reserveHold && 'reserve_hold',
    !same(order.merchant_wallet, ev.merchant) && 'merchant',
    !same(order.platform_wallet, ev.platform) && 'platform',
    order.payer_address !== null && !same(order.payer_address, ev.payer) && 'payer',
    // Accepted only paired with its capture: an OrderPaid of any other transaction never moves an authorization.
    manual && (order.amount_captured === 0n || order.tx_hash === null || !same(order.tx_hash, ev.txHash)) && 'capture',
  ].filter((f): f is string => typeof f === 'string');
}

/**
 * Whether an OrderPaid cannot confirm its order: unknown, not what was agreed, or in a state its trigger does
 * not leave from (ORDER_TRANSITIONS). Each refusal is recorded as an alert (in `tx`) and never confirmed.
 */
export async function refusePaid(tx: Executor, order: PaidCheckRow | undefined, ev: OrderPaidEvent): Promise<boolean> {
  if (!order) {
    await recordAlert(tx, ev.chainId, 'unknown_order', { order_onchain_id: ev.orderId, tx_hash: ev.txHash });
    return true;
  }
  const mismatches = paidMismatches(order, ev);
  if (mismatches.length > 0) {
    await recordAlert(tx, ev.chainId, 'paid_mismatch', { order_id: order.id, fields: mismatches, tx_hash: ev.txHash, amount: ev.amount });
    return true;
  }
  if (!canTransition(order.state, paidTrigger(order))) {
    await recordAlert(tx, ev.chainId, 'paid_unexpected_state', { order_id: order.id, state: order.state, tx_hash: ev.txHash });
    return true;
  }
  return false;
}
