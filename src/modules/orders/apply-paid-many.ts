import type { Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { CheckoutSessionsTable } from '../../db/schema.js';
import { recordAlert } from '../alerts/service.js';
import { emitEvents, type EmitManyInput } from '../events/emit-many.js';
import type { OrderPaidEvent } from './paid-event.js';
import { ordersRepo, type OrderRow } from './repo.js';
import { serializeOrder } from './serialize.js';
import { ORDER_TRANSITIONS } from './state.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The fields of a payment that differ from the order the service signed (empty: it matches to the unit). */
export function paidMismatches(order: OrderRow, ev: OrderPaidEvent): string[] {
  return [
    order.chain_id !== ev.chainId && 'chain_id',
    !same(order.token_address, ev.token) && 'token',
    order.amount !== ev.amount && 'amount',
    order.service_fee !== ev.serviceFee && 'service_fee',
    order.platform_fee !== ev.platformFee && 'platform_fee',
    order.reserve_hold !== ev.reserveHold && 'reserve_hold',
    !same(order.merchant_wallet, ev.merchant) && 'merchant',
    !same(order.platform_wallet, ev.platform) && 'platform',
    order.payer_address !== null && !same(order.payer_address, ev.payer) && 'payer',
  ].filter((f): f is string => typeof f === 'string');
}

/** What checkout.session.completed carries: the session and the confirmed order. */
export const sessionCompletedObject = (session: Selectable<CheckoutSessionsTable>, order: OrderRow) => ({
  id: session.id, object: 'checkout_session', state: 'completed', order_id: order.id, expires_at: new Date(session.expires_at).toISOString(),
  metadata: order.metadata, order: serializeOrder(order),
});

/** Why an OrderPaid cannot confirm its order (an alert is recorded instead), or null when it can. */
async function refuse(tx: Executor, order: OrderRow | undefined, ev: OrderPaidEvent): Promise<boolean> {
  if (!order) {
    await recordAlert(tx, ev.chainId, 'unknown_order', { order_onchain_id: ev.orderId, tx_hash: ev.txHash });
    return true;
  }
  const mismatches = paidMismatches(order, ev);
  if (mismatches.length > 0) {
    await recordAlert(tx, ev.chainId, 'paid_mismatch', { order_id: order.id, fields: mismatches, tx_hash: ev.txHash, amount: ev.amount });
    return true;
  }
  if (!ORDER_TRANSITIONS.paid.from.includes(order.state)) {
    await recordAlert(tx, ev.chainId, 'paid_unexpected_state', { order_id: order.id, state: order.state, tx_hash: ev.txHash });
    return true;
  }
  return false;
}

/**
 * `applyPaid` for many OrderPaid logs of one range, set-based: one statement locks the orders, one confirms
 * every payment that matches its order (compare-and-set on the state), one completes their sessions, three
 * write the outbox. The rules are applyPaid's, the same rows and events result, in chain order; anomalies
 * (unknown order, mismatch, unexpected state) are alerts, one statement each (rare). Returns the orders confirmed.
 */
export async function applyPaidMany(tx: Executor, events: OrderPaidEvent[], onTransition?: (orderId: string) => void): Promise<OrderRow[]> {
  if (events.length === 0) return [];
  const locked = new Map((await ordersRepo.lockByOnchainIds(tx, events.map((e) => e.orderId))).map((o) => [o.onchain_id, o]));
  const ok: OrderPaidEvent[] = [];
  for (const ev of events) if (!(await refuse(tx, locked.get(ev.orderId), ev))) ok.push(ev);
  if (ok.length === 0) return [];
  const now = new Date();
  const ids = ok.map((ev) => locked.get(ev.orderId)!.id);
  const updated = new Map((await ordersRepo.markPaidMany(tx, {
    id: ids, paidBy: ok.map((e) => e.payer), txHash: ok.map((e) => e.txHash), block: ok.map((e) => e.blockNumber.toString()),
    paidAt: ok.map((e) => e.blockTime.toISOString()), releaseAt: ok.map((e) => new Date(Number(e.releaseAfter) * 1000).toISOString()),
  }, now)).map((o) => [o.id, o]));
  // The rows are locked and were checked above: a row that did not move means the table changed under the lock.
  if (updated.size !== ids.length) throw new Error(`applyPaidMany: ${ids.length - updated.size} of ${ids.length} orders did not move to confirmed`);
  const sessions = new Map((await ordersRepo.completeSessionsOf(tx, ids, now)).map((s) => [s.order_id, s]));
  const out: EmitManyInput[] = [];
  for (const id of ids) {
    const order = updated.get(id)!;
    onTransition?.(id);
    out.push({ platformId: order.platform_id, type: 'order.confirmed', data: { object: serializeOrder(order) } });
    const session = sessions.get(id);
    if (session) out.push({ platformId: order.platform_id, type: 'checkout.session.completed', data: { object: sessionCompletedObject(session, order) } });
  }
  await emitEvents(tx, out);
  return ids.map((id) => updated.get(id)!);
}
