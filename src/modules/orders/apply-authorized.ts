import type { Executor } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { OrderAuthorizedEvent } from './authorization-events.js';
import type { OrdersDeps } from './deps.js';
import { ordersRepo, type OrderRow } from './repo.js';
import { canTransition } from './state.js';
import { transitionOrder } from './transition.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The fields of an authorization that differ from the order the service signed (empty: it matches). */
export function authorizedMismatches(order: OrderRow, ev: OrderAuthorizedEvent): string[] {
  const signedCaptureDeadline = order.capture_before === null ? null : BigInt(Math.floor(order.capture_before.getTime() / 1000));
  return [
    order.capture_method !== 'manual' && 'capture_method',
    order.chain_id !== ev.chainId && 'chain_id',
    !same(order.token_address, ev.token) && 'token',
    order.amount !== ev.amount && 'amount',
    !same(order.merchant_wallet, ev.merchant) && 'merchant',
    !same(order.platform_wallet, ev.platform) && 'platform',
    order.payer_address !== null && !same(order.payer_address, ev.payer) && 'payer',
    signedCaptureDeadline !== ev.captureDeadline && 'capture_deadline',
  ].filter((f): f is string => typeof f === 'string');
}

/**
 * Chain event OrderAuthorized at confirmation depth: the router holds the payment of a manual order. The order
 * moves pending_payment (or expired: the chain wins) → authorized with order.authorized; its checkout session
 * completes (checkout follows 'authorize'). Anything that is not what the service signed is an alert, never a move.
 */
export async function applyOrderAuthorized(deps: Pick<OrdersDeps, 'clock' | 'transitions'>, tx: Executor, ev: OrderAuthorizedEvent): Promise<OrderRow | undefined> {
  const order = await ordersRepo.lockByOnchainId(tx, ev.orderId);
  if (!order) {
    await recordAlert(tx, ev.chainId, 'unknown_order', { order_onchain_id: ev.orderId, tx_hash: ev.txHash, event: 'OrderAuthorized' });
    return undefined;
  }
  const mismatches = authorizedMismatches(order, ev);
  if (mismatches.length > 0) {
    await recordAlert(tx, ev.chainId, 'authorized_mismatch', { order_id: order.id, fields: mismatches, tx_hash: ev.txHash, amount: ev.amount });
    return undefined;
  }
  if (!canTransition(order.state, 'authorize')) {
    await recordAlert(tx, ev.chainId, 'authorized_unexpected_state', { order_id: order.id, state: order.state, tx_hash: ev.txHash });
    return undefined;
  }
  return transitionOrder(deps, tx, order, 'authorize', {
    amount_authorized: ev.amount, paid_by: ev.payer, tx_hash: ev.txHash, block_number: ev.blockNumber,
    authorized_at: ev.blockTime, authorization_tx_hash: ev.txHash,
  }, 'order.authorized');
}
