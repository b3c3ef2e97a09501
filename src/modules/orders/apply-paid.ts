import type { Executor } from '../../db/client.js';
import type { OrdersDeps } from './deps.js';
import { paidTrigger, refusePaid } from './paid-checks.js';
import type { OrderPaidEvent } from './paid-event.js';
import { ordersRepo, type OrderRow } from './repo.js';
import { transitionOrder } from './transition.js';

/**
 * Chain event OrderPaid, seen by the indexer at confirmation depth. The payment must match the order the
 * service signed to the unit (amount, fees, reserve, token, merchant, platform); anything else is recorded
 * as an alert and never confirmed. Chain wins over expiry: a paid expired order is confirmed. Its checkout
 * session completes with it (checkout follows the 'paid' transition).
 */
export async function applyOrderPaid(deps: Pick<OrdersDeps, 'clock' | 'transitions'>, tx: Executor, ev: OrderPaidEvent): Promise<OrderRow | undefined> {
  const order = await ordersRepo.lockByOnchainId(tx, ev.orderId);
  if (await refusePaid(tx, order, ev)) return undefined;
  const automatic = order!.capture_method === 'automatic';
  return transitionOrder(deps, tx, order!, paidTrigger(order!), {
    paid_by: ev.payer, tx_hash: ev.txHash, block_number: ev.blockNumber, paid_at: ev.blockTime, confirmed_at: deps.clock.now(),
    reserve_remaining: order!.reserve_hold, reserve_release_at: new Date(Number(ev.releaseAfter) * 1000),
    ...(automatic ? { amount_authorized: order!.amount, amount_captured: order!.amount } : {}),
  }, 'order.confirmed');
}
