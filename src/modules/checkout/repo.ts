import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../db/client.js';
import { precompiled } from '../../db/precompiled.js';
import type { CheckoutSessionsTable } from '../../db/schema.js';
import type { OrderRow } from '../orders/repo.js';
import { SESSION_TRANSITIONS } from './state.js';

const publicReadQuery = precompiled((db: Executor, tokenHash: string) =>
  db.selectFrom('checkout_sessions as s')
    .innerJoin('orders as o', 'o.id', 's.order_id')
    .innerJoin('merchants as m', 'm.id', 'o.merchant_id')
    .innerJoin('platforms as p', 'p.id', 's.platform_id')
    .selectAll('o')
    .select([
      's.id as session_id', 's.state as session_state', 's.expires_at as session_expires_at', 's.success_url', 's.cancel_url',
      's.payer_address as session_payer_address', 's.fee_display', 'm.name as merchant_name', 'p.name as platform_name',
    ])
    .where('s.token_hash', '=', tokenHash));

export const sessionsRepo = {
  insert: (db: Executor, row: Insertable<CheckoutSessionsTable>) =>
    db.insertInto('checkout_sessions').values(row).returningAll().executeTakeFirstOrThrow(),

  /** The public read: session, its order and the two display names, in one round trip (precompiled: every buyer page polls it). */
  async findPublic(db: Executor, tokenHash: string) {
    const r = await publicReadQuery.executeTakeFirst(db, tokenHash);
    if (!r) return undefined;
    const { session_id, session_state, session_expires_at, success_url, cancel_url, session_payer_address, fee_display, merchant_name, platform_name, ...order } = r;
    return {
      session: {
        id: session_id, state: session_state, expires_at: session_expires_at, success_url, cancel_url, payer_address: session_payer_address,
        fee_display, order_id: order.id, merchant_name, platform_name,
      },
      order: order satisfies OrderRow,
    };
  },

  /** Completes the sessions of these orders (compare-and-set from SESSION_TRANSITIONS), in one statement; returns those completed. */
  completeOfOrders: (db: Executor, orderIds: string[], at: Date) => {
    const t = SESSION_TRANSITIONS.complete;
    return db.updateTable('checkout_sessions').set({ state: t.to, completed_at: at })
      .where('order_id', '=', sql<string>`any(${orderIds}::text[])`).where('state', 'in', [...t.from]).returningAll().execute();
  },

  /** Expires the open sessions of these orders (SESSION_TRANSITIONS), in one statement; returns those expired. */
  expireOfOrders: (db: Executor, orderIds: string[]) => {
    const t = SESSION_TRANSITIONS.expire;
    return db.updateTable('checkout_sessions').set({ state: t.to })
      .where('order_id', '=', sql<string>`any(${orderIds}::text[])`).where('state', 'in', [...t.from]).returningAll().execute();
  },
};
