import { sql, type ColumnType, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Db, Executor } from '../../db/client.js';
import type { Cursor } from '../../db/pagination.js';
import type { DB, RefundState, RefundsTable } from '../../db/schema.js';
import { REFUND_TRANSITIONS } from './state.js';

type Ts = ColumnType<Date | null, Date | null | undefined, Date | null>;
type Text = ColumnType<string | null, string | null | undefined, string | null>;
/** Columns added by migrations/006_refunds.sql and 010_operator_txs.sql (kept here, next to the only code that uses them). */
type RefundsExt = RefundsTable & {
  submit_lease_until: Ts;
  submitted_at: Ts;
  /** The operator transaction carrying the current submission (outbox, modules/operator-txs). */
  operator_tx_id: Text;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Ts;
  last_error: Text;
  cancel_requested_at: Ts;
  cancel_reason: Text;
  cancel_tx_id: Text;
};
type DBX = DB & { refunds: RefundsExt };
const x = (db: Executor) => (db as Db).withTables<{ refunds: RefundsExt }>() as unknown as Kysely<DBX>;

export type RefundRow = Selectable<RefundsExt>;
export type NewRefund = Insertable<RefundsExt>;

/** Refunds that still hold part of the order's refundable amount (and perhaps of its reserve). Open = may still fail (or complete): the fail transition's sources. */
export const OPEN_STATES: readonly RefundState[] = REFUND_TRANSITIONS.fail.from;

export const refundsRepo = {
  insert: (db: Executor, row: NewRefund) => x(db).insertInto('refunds').values(row).returningAll().executeTakeFirstOrThrow(),

  findById: (db: Executor, platformId: string, id: string) =>
    x(db).selectFrom('refunds').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst(),

  findAnyById: (db: Executor, id: string) => x(db).selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst(),

  lockByOnchainId: (db: Executor, onchainId: string) =>
    x(db).selectFrom('refunds').selectAll().where('onchain_id', '=', onchainId).forUpdate().executeTakeFirst(),

  list: (db: Executor, platformId: string, f: { orderId?: string | undefined; state?: RefundState | undefined }, limit: number, cursor: Cursor | null) => {
    let q = x(db).selectFrom('refunds').selectAll().where('platform_id', '=', platformId);
    if (f.orderId) q = q.where('order_id', '=', f.orderId);
    if (f.state) q = q.where('state', '=', f.state);
    if (cursor) {
      q = q.where((eb) => eb.or([
        eb('created_at', '<', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)]),
      ]));
    }
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  },

  /** Σ amount and Σ reserve_portion of the order's open refunds (call with the order row locked). */
  openTotals: async (db: Executor, orderId: string) => {
    const r = await x(db).selectFrom('refunds')
      .select([sql<string>`coalesce(sum(amount), 0)::text`.as('amount'), sql<string>`coalesce(sum(reserve_portion), 0)::text`.as('reserve')])
      .where('order_id', '=', orderId).where('state', 'in', OPEN_STATES as RefundState[]).executeTakeFirstOrThrow();
    return { amount: BigInt(r.amount), reserve: BigInt(r.reserve) };
  },

  /** Σ amount of the order's pending refunds already handed to the operator sender: they will spend reserve first. */
  inFlightAmount: async (db: Executor, orderId: string, exceptId: string) => {
    const r = await x(db).selectFrom('refunds').select(sql<string>`coalesce(sum(amount), 0)::text`.as('amount'))
      .where('order_id', '=', orderId).where('state', '=', 'pending').where('operator_tx_id', 'is not', null).where('id', '<>', exceptId)
      .executeTakeFirstOrThrow();
    return BigInt(r.amount);
  },

  /** Compare-and-set from the given states; undefined when the refund had moved on. */
  update: (db: Executor, id: string, from: readonly RefundState[], set: Updateable<RefundsExt>) =>
    x(db).updateTable('refunds').set(set).where('id', '=', id).where('state', 'in', from as RefundState[]).returningAll().executeTakeFirst(),

  /**
   * Pending refunds due for a submission (none in flight, no cancellation asked, their retry time reached),
   * leased for `leaseMs` so other instances skip them while this one reads the chain (outside any transaction).
   */
  claimUnsent: (db: Db, now: Date, leaseMs: number, limit: number) =>
    db.transaction().execute(async (tx) => {
      const rows = await x(tx).selectFrom('refunds').select('id')
        .where('state', '=', 'pending').where('operator_tx_id', 'is', null).where('cancel_requested_at', 'is', null)
        .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
        .where((eb) => eb.or([eb('submit_lease_until', 'is', null), eb('submit_lease_until', '<', now)]))
        .orderBy('created_at').limit(limit).forUpdate().skipLocked().execute();
      if (rows.length === 0) return [];
      return x(tx).updateTable('refunds').set({ submit_lease_until: new Date(now.getTime() + leaseMs) })
        .where('id', 'in', rows.map((r) => r.id)).returningAll().execute();
    }),

  lockById: (db: Executor, id: string) => x(db).selectFrom('refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst(),

  lockForPlatform: (db: Executor, platformId: string, id: string) =>
    x(db).selectFrom('refunds').selectAll().where('platform_id', '=', platformId).where('id', '=', id).forUpdate().executeTakeFirst(),

  /** Open refunds whose cancellation was asked but whose cancelRefund intent ended without effect: sent again. */
  cancelsToSend: (db: Executor, limit: number) =>
    x(db).selectFrom('refunds').selectAll().where('state', 'in', OPEN_STATES as RefundState[])
      .where('cancel_requested_at', 'is not', null).where('cancel_tx_id', 'is', null).orderBy('cancel_requested_at').limit(limit).execute(),

  /** Open refunds of orders on `chainId` whose signed deadline the chain clock has passed. */
  pastDeadline: (db: Executor, chainId: number, chainNow: Date, limit: number) =>
    x(db).selectFrom('refunds').innerJoin('orders', 'orders.id', 'refunds.order_id').selectAll('refunds')
      .where('orders.chain_id', '=', chainId).where('refunds.state', 'in', OPEN_STATES as RefundState[])
      .where('refunds.deadline_at', '<', chainNow).orderBy('refunds.deadline_at').limit(limit).execute(),

  chainIdOf: async (db: Executor, orderId: string) =>
    (await db.selectFrom('orders').select('chain_id').where('id', '=', orderId).executeTakeFirstOrThrow()).chain_id,

  lockOrder: (db: Executor, platformId: string, orderId: string) =>
    db.selectFrom('orders').selectAll().where('platform_id', '=', platformId).where('id', '=', orderId).forUpdate().executeTakeFirst(),

  lockOrderById: (db: Executor, orderId: string) =>
    db.selectFrom('orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst(),

  findOrder: (db: Executor, orderId: string) => db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst(),

  /** Amount fields of an order that are not its state (the state goes through orders.transition). */
  setOrderAmounts: (db: Executor, orderId: string, set: { refunded_amount?: bigint; reserve_remaining?: bigint }, now: Date) =>
    db.updateTable('orders').set({ ...set, updated_at: now }).where('id', '=', orderId).returningAll().executeTakeFirstOrThrow(),
};
