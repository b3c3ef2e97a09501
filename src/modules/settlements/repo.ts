import { sql, type ColumnType, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Db, Executor } from '../../db/client.js';
import type { Cursor } from '../../db/pagination.js';
import type { DB, SettlementsTable } from '../../db/schema.js';

/** Tables and columns of migrations/006_refunds.sql that only this module uses. */
type Ts = ColumnType<Date | null, Date | null | undefined, Date | null>;
type Int8 = ColumnType<bigint, bigint | string | number, bigint | string | number>;
export type ItemState = 'included' | 'released' | 'release_failed' | 'skipped' | 'batch_failed';
type SettlementsExt = SettlementsTable & { submitted_at: Ts; operator_tx_id: ColumnType<string | null, string | null | undefined, string | null> };
type OrdersExt = DB['orders'] & { reserve_release_at: Ts };
interface SettlementItemsTable {
  settlement_id: string;
  order_id: string;
  platform_id: string;
  amount: Int8;
  released_amount: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  state: ItemState;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
type Ext = { settlements: SettlementsExt; settlement_items: SettlementItemsTable; orders: OrdersExt };
type DBX = Omit<DB, keyof Ext> & Ext;
const x = (db: Executor) => (db as Db).withTables<Ext>() as unknown as Kysely<DBX>;

export type SettlementRow = Selectable<SettlementsExt>;
export type ItemRow = Selectable<SettlementItemsTable> & { order_no: string; merchant_id: string };
export type DueOrder = { id: string; platform_id: string; onchain_id: string; pay_to: string; reserve_remaining: bigint };

export const settlementsRepo = {
  /**
   * Orders whose reserve is due on `chainId`: their on-chain hold (OrderPaid.releaseAfter) at or before
   * `chainNow` (the latest block's timestamp), reserve left,
   * in no batch, no open refund (it may still need the reserve), and no release the token refused within
   * the retry delay. Locked so concurrent workers build disjoint batches.
   */
  lockDue: (tx: Executor, chainId: number, chainNow: Date, retryFailedAfter: Date, limit: number) =>
    x(tx).selectFrom('orders').select(['id', 'platform_id', 'onchain_id', 'pay_to', 'reserve_remaining'])
      .where('chain_id', '=', chainId).where('settlement_id', 'is', null).where('reserve_remaining', '>', 0n)
      .where('state', 'in', ['confirmed', 'partially_refunded']).where('reserve_release_at', '<=', chainNow)
      .where(({ not, exists, selectFrom }) => not(exists(
        selectFrom('refunds').select('refunds.id').whereRef('refunds.order_id', '=', 'orders.id').where('refunds.state', 'in', ['pending', 'requires_funding']),
      )))
      .where(({ not, exists, selectFrom }) => not(exists(
        selectFrom('settlement_items').select('settlement_items.order_id').whereRef('settlement_items.order_id', '=', 'orders.id')
          .where('settlement_items.state', '=', 'release_failed').where('settlement_items.updated_at', '>', retryFailedAfter),
      )))
      .orderBy('paid_at').orderBy('id').limit(limit).forUpdate().skipLocked().execute() as Promise<DueOrder[]>,

  insert: (tx: Executor, row: Insertable<SettlementsExt>) => x(tx).insertInto('settlements').values(row).returningAll().executeTakeFirstOrThrow(),

  insertItems: (tx: Executor, rows: Insertable<SettlementItemsTable>[]) => x(tx).insertInto('settlement_items').values(rows).execute(),

  linkOrders: (tx: Executor, settlementId: string, orderIds: string[], now: Date) =>
    x(tx).updateTable('orders').set({ settlement_id: settlementId, updated_at: now }).where('id', 'in', orderIds).execute(),

  /** Frees orders still linked to a batch so a later batch can carry them. */
  unlinkOrders: (tx: Executor, settlementId: string, now: Date, orderIds?: string[]) => {
    let q = x(tx).updateTable('orders').set({ settlement_id: null, updated_at: now }).where('settlement_id', '=', settlementId);
    if (orderIds) q = q.where('id', 'in', orderIds);
    return q.execute();
  },

  update: (db: Executor, id: string, from: readonly SettlementRow['state'][], set: Updateable<SettlementsExt>) =>
    x(db).updateTable('settlements').set(set).where('id', '=', id).where('state', 'in', from).returningAll().executeTakeFirst(),

  /** Compare-and-set of a batch's items (one order's, when orderId is given) from the given states. */
  setItems: (db: Executor, settlementId: string, from: readonly ItemState[], set: Updateable<SettlementItemsTable> & { updated_at: Date }, orderId?: string) => {
    let q = x(db).updateTable('settlement_items').set(set)
      .where('settlement_id', '=', settlementId).where('state', 'in', from);
    if (orderId) q = q.where('order_id', '=', orderId);
    return q.returningAll().execute();
  },

  lockByOnchainId: (db: Executor, onchainId: string) =>
    x(db).selectFrom('settlements').selectAll().where('onchain_id', '=', onchainId).forUpdate().executeTakeFirst(),

  findById: (db: Executor, id: string) => x(db).selectFrom('settlements').selectAll().where('id', '=', id).executeTakeFirst(),

  /** Batches sent before the operator sender existed (no intent): handed to it under the same batch id. */
  lockLegacyOpen: (tx: Executor, chainId: number, limit: number) =>
    x(tx).selectFrom('settlements').selectAll().where('chain_id', '=', chainId).where('state', '=', 'submitted')
      .where('operator_tx_id', 'is', null).orderBy('created_at').limit(limit).forUpdate().skipLocked().execute(),

  open: (db: Executor, limit: number) =>
    x(db).selectFrom('settlements').selectAll().where('state', '=', 'submitted').orderBy('created_at').limit(limit).execute(),

  /** Orders of a batch the operator must (re)send, in the order they were batched. */
  includedOnchainIds: async (db: Executor, settlementId: string) =>
    (await x(db).selectFrom('settlement_items').innerJoin('orders', 'orders.id', 'settlement_items.order_id')
      .select(['orders.onchain_id', 'orders.pay_to']).where('settlement_items.settlement_id', '=', settlementId)
      .where('settlement_items.state', '=', 'included').orderBy('orders.paid_at').orderBy('orders.id').execute()),

  lockOrderByOnchainId: (db: Executor, chainId: number, onchainId: string) =>
    x(db).selectFrom('orders').selectAll().where('chain_id', '=', chainId).where('onchain_id', '=', onchainId).forUpdate().executeTakeFirst(),

  setOrderReserve: (db: Executor, orderId: string, reserve: bigint, now: Date) =>
    x(db).updateTable('orders').set({ reserve_remaining: reserve, updated_at: now }).where('id', '=', orderId).execute(),

  /** One platform's items (or every platform's, when platformId is null) of the given settlements. */
  items: (db: Executor, settlementIds: string[], platformId: string | null) => {
    if (settlementIds.length === 0) return Promise.resolve([] as ItemRow[]);
    let q = x(db).selectFrom('settlement_items').innerJoin('orders', 'orders.id', 'settlement_items.order_id')
      .selectAll('settlement_items').select(['orders.order_no', 'orders.merchant_external_id as merchant_id'])
      .where('settlement_items.settlement_id', 'in', settlementIds);
    if (platformId) q = q.where('settlement_items.platform_id', '=', platformId);
    return q.orderBy('settlement_items.order_id').execute() as Promise<ItemRow[]>;
  },

  platformsOf: async (db: Executor, settlementId: string) =>
    (await x(db).selectFrom('settlement_items').select('platform_id').distinct().where('settlement_id', '=', settlementId).execute()).map((r) => r.platform_id),

  /** Batches carrying at least one of the platform's orders, newest first. */
  listForPlatform: (db: Executor, platformId: string, limit: number, cursor: Cursor | null) => {
    let q = x(db).selectFrom('settlements').selectAll()
      .where(({ exists, selectFrom }) => exists(
        selectFrom('settlement_items').select(sql`1`.as('one')).whereRef('settlement_items.settlement_id', '=', 'settlements.id')
          .where('settlement_items.platform_id', '=', platformId),
      ));
    if (cursor) {
      q = q.where((eb) => eb.or([
        eb('created_at', '<', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)]),
      ]));
    }
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  },

  findForPlatform: (db: Executor, platformId: string, id: string) =>
    x(db).selectFrom('settlements').selectAll().where('id', '=', id)
      .where(({ exists, selectFrom }) => exists(
        selectFrom('settlement_items').select(sql`1`.as('one')).whereRef('settlement_items.settlement_id', '=', 'settlements.id')
          .where('settlement_items.platform_id', '=', platformId),
      )).executeTakeFirst(),
};
