import type { Executor } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { OrderCapturedEvent } from './authorization-events.js';
import type { OrdersDeps } from './deps.js';
import { ordersRepo } from './repo.js';
import { computeSplit } from './split.js';

/**
 * Chain event OrderCaptured at depth: the first half of a capture. It records on the authorized order what was
 * captured and the split of that amount the service computes (the frozen rates), and the capture's transaction;
 * the OrderPaid of the same transaction, applied next, must match them to the unit to move the order to
 * confirmed (paid-checks.ts). A capture that does not fit the order is an alert and records nothing.
 */
export async function applyOrderCaptured(deps: Pick<OrdersDeps, 'clock'>, tx: Executor, ev: OrderCapturedEvent): Promise<void> {
  const order = await ordersRepo.lockByOnchainId(tx, ev.orderId);
  if (!order) {
    await recordAlert(tx, ev.chainId, 'unknown_order', { order_onchain_id: ev.orderId, tx_hash: ev.txHash, event: 'OrderCaptured' });
    return;
  }
  const bad = [
    order.capture_method !== 'manual' && 'capture_method',
    order.state !== 'authorized' && 'state',
    order.chain_id !== ev.chainId && 'chain_id',
    ev.authorized !== order.amount_authorized && 'authorized',
    (ev.captured <= 0n || ev.captured > ev.authorized) && 'captured',
    ev.captured + ev.returned !== ev.authorized && 'returned',
  ].filter((f): f is string => typeof f === 'string');
  if (bad.length > 0) {
    await recordAlert(tx, ev.chainId, 'capture_mismatch', { order_id: order.id, state: order.state, fields: bad, tx_hash: ev.txHash, captured: ev.captured });
    return;
  }
  const split = computeSplit(ev.captured, order.service_fee_bps, order.platform_fee_bps, order.reserve_bps);
  await ordersRepo.recordCapture(tx, order.id, ev.captured, split, ev.txHash, deps.clock.now());
}
