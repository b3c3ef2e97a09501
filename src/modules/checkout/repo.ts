import type { Insertable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { CheckoutSessionsTable } from '../../db/schema.js';

export const sessionsRepo = {
  insert: (db: Executor, row: Insertable<CheckoutSessionsTable>) =>
    db.insertInto('checkout_sessions').values(row).returningAll().executeTakeFirstOrThrow(),

  /** The public read: session, its order and the two display names, in one round trip. */
  findPublic: (db: Executor, tokenHash: string) =>
    db.selectFrom('checkout_sessions as s')
      .innerJoin('orders as o', 'o.id', 's.order_id')
      .innerJoin('merchants as m', 'm.id', 'o.merchant_id')
      .innerJoin('platforms as p', 'p.id', 's.platform_id')
      .selectAll('s')
      .select(['m.name as merchant_name', 'p.name as platform_name'])
      .where('s.token_hash', '=', tokenHash)
      .executeTakeFirst(),

  findByOrderId: (db: Executor, orderId: string) =>
    db.selectFrom('checkout_sessions').selectAll().where('order_id', '=', orderId).executeTakeFirst(),

  complete: (db: Executor, orderId: string, now: Date) =>
    db.updateTable('checkout_sessions').set({ state: 'completed', completed_at: now })
      .where('order_id', '=', orderId).where('state', 'in', ['open', 'expired']).returningAll().executeTakeFirst(),
};
