import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { DepositsTable } from '../../db/schema.js';
import type { OrderRow } from '../orders/repo.js';

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

  /** The order a deposit pays. */
  order: async (db: Executor, orderId: string) => (await db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow()) as OrderRow,

  byOrderForUpdate: (db: Executor, orderId: string) =>
    db.selectFrom('deposits').selectAll().where('order_id', '=', orderId).forUpdate().executeTakeFirst(),

  /** One of the platform's sweeps of the day (UTC, chain clock) while fewer than `cap` were taken; false when the day is full. */
  takeSweepSlot: async (db: Executor, platformId: string, day: string, cap: number): Promise<boolean> => {
    const r = await sql<{ sweeps: number }>`insert into relay_daily_usage (platform_id, day, sweeps) select ${platformId}, ${day}::date, 1 where ${cap}::int > 0
      on conflict (platform_id, day) do update set sweeps = relay_daily_usage.sweeps + 1 where relay_daily_usage.sweeps < ${cap}::int
      returning sweeps`.execute(db);
    return r.rows.length > 0;
  },

  /**
   * What a mined sweep cost (gas used x effective price, also for a revert) joins the relayer's day on the chain (the
   * same RELAYER_DAILY_BUDGET_WEI as gasless relays), the platform's relay gas of that day, and the deposit's own total.
   */
  chargeSweep: async (tx: Executor, c: { chainId: number; platformId: string; orderId: string; day: string; wei: bigint }) => {
    const wei = c.wei.toString();
    await sql`insert into relayer_budget_days (chain_id, day, spent_wei) values (${c.chainId}, ${c.day}::date, ${wei}::numeric)
      on conflict (chain_id, day) do update set spent_wei = relayer_budget_days.spent_wei + excluded.spent_wei`.execute(tx);
    await sql`insert into relay_daily_usage (platform_id, day, gas_cost_wei) values (${c.platformId}, ${c.day}::date, ${wei}::numeric)
      on conflict (platform_id, day) do update set gas_cost_wei = relay_daily_usage.gas_cost_wei + excluded.gas_cost_wei`.execute(tx);
    await sql`update deposits set sweep_gas_wei = sweep_gas_wei + ${wei}::numeric where order_id = ${c.orderId}`.execute(tx);
  },

  /** Deposits still watched whose next sweep try is due at chain time `at`, oldest first. */
  dueForRetry: async (db: Executor, chainId: number, at: Date, limit: number) =>
    (await db.selectFrom('deposits').select('order_id').where('chain_id', '=', chainId).where('sweep_pending', '=', false)
      .where('next_sweep_at', 'is not', null).where('next_sweep_at', '<=', at).where('watch_until', '>', at)
      .orderBy('next_sweep_at').limit(limit).execute()).map((r) => r.order_id),

  /** Locks the deposit for a retry unless another instance holds it (then that one is trying it). */
  lockForRetry: (db: Executor, orderId: string) =>
    db.selectFrom('deposits').selectAll().where('order_id', '=', orderId).where('sweep_pending', '=', false).forUpdate().skipLocked().executeTakeFirst(),
};
