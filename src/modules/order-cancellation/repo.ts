import type { ColumnType, Kysely, Selectable } from 'kysely';
import type { Db, Executor } from '../../db/client.js';
import type { DB } from '../../db/schema.js';

type Ts = ColumnType<Date | null, Date | null | undefined, Date | null>;
type Text = ColumnType<string | null, string | null | undefined, string | null>;
/** Columns of migrations/010_operator_txs.sql on orders that this module owns. */
type OrdersExt = DB['orders'] & { cancel_requested_at: Ts; cancel_reason: Text };
type Ext = { orders: OrdersExt };
const x = (db: Executor) => (db as Db).withTables<Ext>() as unknown as Kysely<Omit<DB, 'orders'> & Ext>;

export type CancellableOrder = Selectable<OrdersExt>;

export const orderCancellationRepo = {
  find: (db: Executor, id: string) => x(db).selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst(),

  lock: (tx: Executor, id: string) => x(tx).selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst(),

  lockByOnchainId: (tx: Executor, chainId: number, onchainId: string) =>
    x(tx).selectFrom('orders').selectAll().where('chain_id', '=', chainId).where('onchain_id', '=', onchainId).forUpdate().executeTakeFirst(),

  markRequested: (tx: Executor, id: string, reason: string, now: Date) =>
    x(tx).updateTable('orders').set({ cancel_requested_at: now, cancel_reason: reason, updated_at: now })
      .where('id', '=', id).returningAll().executeTakeFirstOrThrow(),

  clearRequest: (tx: Executor, id: string, now: Date) =>
    x(tx).updateTable('orders').set({ cancel_requested_at: null, updated_at: now }).where('id', '=', id).where('state', '=', 'pending_payment').execute(),
};
