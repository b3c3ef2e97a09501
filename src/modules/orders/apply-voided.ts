import type { Executor } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { AuthorizationEndedEvent } from './authorization-events.js';
import type { OrdersDeps } from './deps.js';
import { ordersRepo, type OrderRow } from './repo.js';
import { transitionOrder } from './transition.js';

/**
 * Chain events AuthorizationVoided / AuthorizationReclaimed at depth: the router sent the whole authorization
 * back to the payer, so the order moves authorized → voided with order.voided, and frees its order_no as an
 * expired order does. The reason: the payer's reclaim, or the void the service asked for (by the platform, or
 * by the sweeper when capture_before passed). The chain has decided: a mismatch is an alert, not a refusal.
 */
export async function applyAuthorizationEnded(deps: Pick<OrdersDeps, 'clock' | 'transitions'>, tx: Executor, ev: AuthorizationEndedEvent): Promise<OrderRow | undefined> {
  const order = await ordersRepo.lockByOnchainId(tx, ev.orderId);
  if (!order) {
    await recordAlert(tx, ev.chainId, 'unknown_order', { order_onchain_id: ev.orderId, tx_hash: ev.txHash, event: ev.by === 'void' ? 'AuthorizationVoided' : 'AuthorizationReclaimed' });
    return undefined;
  }
  if (order.state !== 'authorized') {
    await recordAlert(tx, ev.chainId, 'void_unexpected_state', { order_id: order.id, state: order.state, tx_hash: ev.txHash });
    return undefined;
  }
  if (ev.amount !== order.amount_authorized || order.paid_by === null || order.paid_by.toLowerCase() !== ev.payer.toLowerCase()) {
    await recordAlert(tx, ev.chainId, 'void_mismatch', { order_id: order.id, amount: ev.amount, payer: ev.payer, tx_hash: ev.txHash });
  }
  if (ev.by === 'void' && order.void_requested_reason === null) {
    await recordAlert(tx, ev.chainId, 'void_unrequested', { order_id: order.id, tx_hash: ev.txHash });
  }
  const reason = ev.by === 'reclaim' ? 'reclaimed_by_payer' : (order.void_requested_reason ?? 'requested');
  return transitionOrder(deps, tx, order, 'void', {
    void_reason: reason, voided_at: ev.blockTime, void_tx_hash: ev.txHash, order_no_released: true,
  }, 'order.voided');
}
