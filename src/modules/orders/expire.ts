import type { OrdersDeps } from './deps.js';
import { ordersRepo } from './repo.js';
import { transitionOrder } from './transition.js';

/**
 * Sweeper, on the chain's clock: `indexedUntil` is the timestamp of the block up to which the indexer has
 * applied every log at confirmation depth. A pending order whose deadline is before it was not paid in
 * time (blocks after it are later still, and the router refuses a payment past the deadline), so it
 * expires and frees its order_no; its checkout session expires with it (checkout follows the 'expire'
 * transition). Never on the wall clock: a payment mined before the deadline but not yet at depth keeps the
 * order pending (issue 15, the expiry race). Returns how many orders it expired.
 */
export async function expireDueOrders(deps: Pick<OrdersDeps, 'db' | 'clock' | 'transitions'>, chainId: number, indexedUntil: Date, batch = 200): Promise<number> {
  return deps.db.transaction().execute(async (tx) => {
    const due = await ordersRepo.lockDue(tx, chainId, indexedUntil, batch);
    for (const { id } of due) {
      const order = (await ordersRepo.findAnyById(tx, id))!;
      await transitionOrder(deps, tx, order, 'expire', { expired_at: deps.clock.now(), order_no_released: true }, 'order.expired');
    }
    return due.length;
  });
}
