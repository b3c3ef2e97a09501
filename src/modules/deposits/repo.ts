import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { DepositsTable } from '../../db/schema.js';

export type DepositRow = Selectable<DepositsTable>;

export const depositsRepo = {
  /** The order, and its session's late_payment (null: a direct order). */
  orderForDeposit: (db: Executor, orderId: string, platformId: string | null) => {
    let q = db.selectFrom('orders as o').leftJoin('checkout_sessions as s', 's.order_id', 'o.id').selectAll('o')
      .select(['s.late_payment', 's.expires_at as session_expires_at']).where('o.id', '=', orderId);
    if (platformId !== null) q = q.where('o.platform_id', '=', platformId);
    return q.executeTakeFirst();
  },

  insert: (db: Executor, row: Insertable<DepositsTable>) => db.insertInto('deposits').values(row).onConflict((oc) => oc.doNothing()).execute(),

  /** Compare-and-set: the order's deposit fields are written once. */
  setOnOrder: (db: Executor, orderId: string, depositAddress: string, refundAddress: string) =>
    db.updateTable('orders').set({ deposit_address: depositAddress, refund_address: refundAddress, updated_at: sql`now()` })
      .where('id', '=', orderId).where('deposit_address', 'is', null).returningAll().executeTakeFirst(),

  /** The deposits the indexer watches on a chain (lowercase addresses). */
  watched: async (db: Executor, chainId: number, now: Date) =>
    (await db.selectFrom('deposits').select('address').where('chain_id', '=', chainId).where('watch_until', '>', now).execute()).map((r) => r.address),

  byAddress: (db: Executor, chainId: number, address: string) =>
    db.selectFrom('deposits').selectAll().where('chain_id', '=', chainId).where('address', '=', address.toLowerCase()).executeTakeFirst(),

  byOrderForUpdate: (db: Executor, orderId: string) =>
    db.selectFrom('deposits').selectAll().where('order_id', '=', orderId).forUpdate().executeTakeFirst(),
};
