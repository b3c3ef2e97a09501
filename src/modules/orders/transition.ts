import type { Executor } from '../../db/client.js';
import type { OrderState } from '../../db/schema.js';
import { AppError } from '../../lib/errors.js';
import { emitEvent, type EventType } from '../events/service.js';
import type { OrdersDeps } from './deps.js';
import { ordersRepo, type OrderRow } from './repo.js';
import { serializeOrder } from './serialize.js';
import { ORDER_TRANSITIONS, invalidTransitionMessage, type OrderTrigger } from './state.js';

/**
 * One state change, its webhook event (outbox) and its OrderTransitioned, in the caller's transaction.
 * Compare-and-set on the trigger's from-states (ORDER_TRANSITIONS); when nothing matched, the current state
 * is re-read and named in the error. Refunds and the cancellation hook call it too (orders.transition).
 */
export async function transitionOrder(
  deps: Pick<OrdersDeps, 'clock' | 'transitions'>, tx: Executor, order: OrderRow, trigger: OrderTrigger,
  set: Partial<Record<string, unknown>>, eventType?: EventType,
): Promise<OrderRow> {
  const t = ORDER_TRANSITIONS[trigger];
  const at = deps.clock.now();
  const updated = await ordersRepo.transition(tx, order.id, t.from, { ...set, state: t.to }, at);
  if (!updated) {
    const current = (await ordersRepo.findAnyById(tx, order.id))?.state ?? order.state;
    throw new AppError('invalid_state', invalidTransitionMessage(order.id, current as OrderState, trigger));
  }
  if (eventType) await emitEvent(tx, { platformId: updated.platform_id, type: eventType, data: { object: serializeOrder(updated) } });
  await deps.transitions.publish({ tx, trigger, to: t.to, at, moved: [{ order: updated, from: order.state }], rows: async (ids) => (ids.includes(updated.id) ? [updated] : []) });
  return updated;
}
