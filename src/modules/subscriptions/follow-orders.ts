import type { OrderTransitioned } from '../orders/index.js';
import { subscriptionsRepo } from './repo.js';
import { tryTransition } from './transition.js';

const SEC = 1000;

/**
 * Subscriptions follow their charges' orders (OrderTransitioned, inside the indexer's transaction): a confirmed
 * charge (OrderPaid at depth) paid period j = ⌊(block time − start) / period⌋, as the manager counted it; the next
 * charge is due at start + (j + 1) × period on the chain clock, dunning is cleared, and a past_due subscription is
 * active again (subscription.activated). Wired in services.ts; orders never imports subscriptions.
 */
export function subscriptionsFollowOrders(clock: { now(): Date }) {
  return async (e: OrderTransitioned): Promise<void> => {
    if (e.trigger !== 'paid') return;
    const ids = e.moved.filter((m) => m.order.subscription_id).map((m) => m.order.id);
    if (ids.length === 0) return;
    for (const order of await e.rows(ids)) {
      const s = order.subscription_id ? await subscriptionsRepo.lockById(e.tx, order.subscription_id) : undefined;
      if (!s?.start_at || !order.paid_at) continue;
      const start = s.start_at.getTime();
      const j = Math.max(0, Math.floor((order.paid_at.getTime() - start) / SEC / s.period_seconds));
      if (j + 1 <= s.next_period && s.charge_order_id !== order.id) continue; // an older period's late confirmation
      const periodStart = new Date(start + j * s.period_seconds * SEC);
      const periodEnd = new Date(start + (j + 1) * s.period_seconds * SEC);
      const open = s.state === 'active' || s.state === 'past_due';
      const set = {
        next_period: Math.max(s.next_period, j + 1), current_period_start: periodStart, current_period_end: periodEnd, failed_attempts: 0,
        charge_order_id: s.charge_order_id === order.id ? null : s.charge_order_id, ...(open ? { next_charge_at: periodEnd } : {}),
      };
      if (!(await tryTransition(e.tx, s, 'recover', set, clock.now()))) await subscriptionsRepo.update(e.tx, s.id, set, clock.now());
    }
  };
}
