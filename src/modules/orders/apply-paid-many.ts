import type { Executor } from '../../db/client.js';
import { outboxCtes, planOutbox } from '../events/emit-many.js';
import type { OrdersDeps } from './deps.js';
import { paidTrigger, refusePaid } from './paid-checks.js';
import type { OrderPaidEvent } from './paid-event.js';
import { ordersRepo, type MovedOrder } from './repo.js';
import { ORDER_TRANSITIONS } from './state.js';

/**
 * `applyOrderPaid` for many OrderPaid logs of one range, set-based: one statement locks the orders, one reads
 * the endpoints their events go to, and one confirms every payment that matches its order (compare-and-set on
 * the state; a manual order's OrderPaid is the second half of its capture) and writes its order.confirmed event and deliveries, the body built in SQL (serialize-sql.ts), so
 * the rows never travel to Node and back. One OrderTransitioned carries the whole batch (checkout completes
 * its sessions in one statement). The rules are applyOrderPaid's, the same rows and events result; anomalies
 * (unknown order, mismatch, unexpected state) are alerts, one statement each (rare). Returns the orders
 * confirmed, in chain order.
 */
export async function applyOrderPaidMany(deps: Pick<OrdersDeps, 'clock' | 'transitions'>, tx: Executor, events: OrderPaidEvent[]): Promise<MovedOrder[]> {
  if (events.length === 0) return [];
  const locked = new Map((await ordersRepo.lockByOnchainIds(tx, events.map((e) => e.orderId))).map((o) => [o.onchain_id, o]));
  const ok: OrderPaidEvent[] = [];
  for (const ev of events) if (!(await refusePaid(tx, locked.get(ev.orderId), ev))) ok.push(ev);
  if (ok.length === 0) return [];
  const at = deps.clock.now();
  const before = ok.map((ev) => locked.get(ev.orderId)!);
  const plan = await planOutbox(tx, before.map((o) => ({ platformId: o.platform_id, type: 'order.confirmed' as const })));
  const updated = new Map((await ordersRepo.confirmPaidMany(tx, {
    id: before.map((o) => o.id), eventId: plan.eventIds, paidBy: ok.map((e) => e.payer), txHash: ok.map((e) => e.txHash),
    block: ok.map((e) => e.blockNumber.toString()), paidAt: ok.map((e) => e.blockTime.toISOString()),
    releaseAt: ok.map((e) => new Date(Number(e.releaseAfter) * 1000).toISOString()),
  }, at, (source) => outboxCtes(tx, source, 'order.confirmed', plan))).map((o) => [o.id, o]));
  // The rows are locked and were checked above: a row that did not move means the table changed under the lock.
  if (updated.size !== before.length) throw new Error(`applyPaidMany: ${before.length - updated.size} of ${before.length} orders did not move to confirmed`);
  const moved = before.map((o) => ({ order: updated.get(o.id)!, from: o.state, trigger: paidTrigger(o) }));
  // One OrderTransitioned per trigger: 'paid' (automatic orders), 'capture' (authorizations captured).
  for (const trigger of ['paid', 'capture'] as const) {
    const of = moved.filter((m) => m.trigger === trigger).map(({ order, from }) => ({ order, from }));
    await deps.transitions.publish({ tx, trigger, to: ORDER_TRANSITIONS[trigger].to, at, moved: of, rows: (ids) => ordersRepo.byIds(tx, ids) });
  }
  return moved.map(({ order }) => order);
}
