import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../lib/errors.js';
import { ordersRepo, type NewOrderRow, type OrderRow } from './repo.js';

/**
 * Inserts a prepared order (prepare.ts). With `ifCurrent`: only if the platform and merchant rows still hold
 * what the row froze from them, and the key is unrevoked (undefined otherwise), see create.ts.
 */
export async function insertPreparedOrder(tx: Executor, row: NewOrderRow): Promise<OrderRow>;
export async function insertPreparedOrder(tx: Executor, row: NewOrderRow, ifCurrent: { liveKeyId: string | null }): Promise<OrderRow | undefined>;
export async function insertPreparedOrder(tx: Executor, row: NewOrderRow, ifCurrent?: { liveKeyId: string | null }) {
  try {
    return ifCurrent ? await ordersRepo.insertIfCurrent(tx, row, ifCurrent.liveKeyId) : await ordersRepo.insert(tx, row);
  } catch (err) {
    if (isUniqueViolation(err, 'orders_order_no_live')) {
      throw new AppError('conflict', `order_no '${row.order_no}' is already used on this platform.`, 'order_no');
    }
    throw err;
  }
}
