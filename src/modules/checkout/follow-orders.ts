import type { Executor } from '../../db/client.js';
import { emitEvents, type EmitManyInput } from '../events/emit-many.js';
import type { OrderRow } from '../orders/repo.js';
import type { OrderTransitioned } from '../orders/index.js';
import type { PublicSessionCache } from './public-cache.js';
import { sessionsRepo } from './repo.js';
import { sessionCompletedObject, sessionExpiredObject, type SessionRow } from './serialize.js';

/**
 * Sessions follow their orders (subscribed to OrderTransitioned in services.ts, inside the order's
 * transaction): a paid order (or, for capture_method manual, an authorized one: the buyer is done) completes
 * its session (open, or expired by the sweeper before the payment reached depth: the chain wins), an expired
 * order expires its open session. Checkout is the only writer of
 * checkout_sessions and of the checkout.session.* events. One statement per batch of orders, whatever its size.
 */
export async function sessionsFollowOrders(e: OrderTransitioned): Promise<void> {
  if (e.trigger !== 'paid' && e.trigger !== 'authorize' && e.trigger !== 'expire') return;
  const ids = e.moved.filter((m) => m.order.checkout_session_id !== null).map((m) => m.order.id);
  if (ids.length === 0) return;
  const rows = new Map((await e.rows(ids)).map((o) => [o.id, o]));
  const orders = new Map(ids.map((id) => [id, rows.get(id)!]));
  if (e.trigger !== 'expire') {
    await emitFor(e.tx, orders, await sessionsRepo.completeOfOrders(e.tx, ids, e.at), 'checkout.session.completed', sessionCompletedObject);
  } else {
    await emitFor(e.tx, orders, await sessionsRepo.expireOfOrders(e.tx, ids), 'checkout.session.expired', sessionExpiredObject);
  }
}

/** One event per session changed, in the order of the batch (chain order, as the orders' own events). */
async function emitFor(
  tx: Executor, orders: Map<string, OrderRow>, sessions: SessionRow[], type: EmitManyInput['type'],
  object: (s: SessionRow, o: OrderRow) => Record<string, unknown>,
): Promise<void> {
  const byOrder = new Map(sessions.map((s) => [s.order_id, s]));
  const out: EmitManyInput[] = [];
  for (const [id, order] of orders) {
    const session = byOrder.get(id);
    if (session) out.push({ platformId: order.platform_id, type, data: { object: object(session, order) } });
  }
  await emitEvents(tx, out);
}

/** The public read's cache drops an order's answer the moment the order moves (not yet committed: held). */
export const cacheFollowsOrders = (cache: PublicSessionCache) => (e: OrderTransitioned): void => {
  for (const { order } of e.moved) cache.changing(order.id);
};
