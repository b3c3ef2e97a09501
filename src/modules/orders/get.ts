import { notFound } from '../../lib/errors.js';
import type { OrdersDeps } from './deps.js';
import { ordersRepo, type OrderRow } from './repo.js';

/**
 * GET /v1/orders/{id}. An order past its deadline on the wall clock may still have been paid in time: it
 * stays pending_payment until the indexed chain says otherwise (expire.ts), never expired on read.
 */
export async function getOrder(deps: Pick<OrdersDeps, 'db'>, platformId: string, id: string): Promise<OrderRow> {
  const order = await ordersRepo.findById(deps.db, platformId, id);
  if (!order) throw notFound('order');
  return order;
}
