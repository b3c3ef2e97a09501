import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';
import { PAID_AMOUNT_SQL } from '../orders/repo.js';
import { BRANCHES } from './ledger-branches.js';
import type { BalanceTransactionType, LedgerFilter } from './types.js';
export type { LedgerFilter } from './types.js';

/**
 * All SQL of the balance module. It reads orders, refunds, settlements, settlement_items and chain tables, and writes
 * only its own closing tables (balance_closings, balance_closed_*), from the closing worker (close-all.ts).
 */

type Int = bigint | string | number | null;
/** One row per merchant and source: closed sums with the reserve held, live payments, live refunds, or authorized (others null). */
export type BalancePartRow = {
  src: 'closed' | 'paid' | 'refunds' | 'authorized'; merchant_id: string; gross: Int; platform_fees: Int; reserve_hold: Int;
  from_reserve: Int; from_submitter: Int; held: Int; releasable: Int; next_release_at: Date | string | null; authorized: Int;
};
export type LedgerRow = {
  id: string; type: BalanceTransactionType; status: 'posted' | 'failed'; amount: Int; from_address: string | null; to_address: string | null;
  merchant_id: string; order_id: string; refund_id: string | null; settlement_id: string | null; chain_id: number;
  tx_hash: string | null; block_time: Date | string; event_key: string; log_index: number | null;
};
export type DayRow = { day: string; gross: Int; refunded: Int; payments: Int; refunds: Int };

const merchantIs = (col: string, m: string | undefined) => (m === undefined ? sql`` : sql`and ${sql.ref(col)} = ${m}`);
const EPOCH = sql`'1970-01-01T00:00:00Z'::timestamptz`;
/** What a paid order paid out: its amount, or the captured part of an authorization (orders' PAID_AMOUNT_SQL). */
const PAID = sql.raw(PAID_AMOUNT_SQL);

export const balanceRepo = {
  merchantExists: async (db: Executor, platformId: string, externalId: string) =>
    (await sql<{ one: number }>`select 1 as one from merchants where platform_id = ${platformId} and external_id = ${externalId}`.execute(db)).rows.length > 0,

  /**
   * Everything GET /v1/balance sums: the closed sums, payments and refunds since the closing point `since` (read in
   * the same snapshot, see get-balance.ts), and the reserve still held (balance_reserves, kept by a trigger on orders,
   * migration 038) with what the indexed chain time (the cursor block's time) lets go and when the next hold ends:
   * the merchant's earliest hold end as kept, or, where the chain time has passed it (orders not released yet), an
   * index range up to the chain time and one probe past it. Nothing grows with the number of orders inside their hold.
   * The closed sums and the reserve come as one row per merchant (one row to read, not two). `since` is a value, not a
   * subquery, so the planner sees a short index range.
   */
  balanceParts: async (db: Executor, p: string, since: Date, m?: string) => (await sql<BalancePartRow>`
    select 'closed' as src, coalesce(k.merchant_id, r.merchant_id) as merchant_id, k.gross, k.platform_fees, k.reserve_hold,
           k.refunded_from_reserve as from_reserve, k.refunded_from_submitter as from_submitter, r.held, r.releasable, r.next_release_at,
           null::int8 as authorized
      from (select * from balance_closed_merchants where platform_id = ${p} ${merchantIs('merchant_id', m)}) k
      full join (
        select r.merchant_id, sum(r.held) as held,
               sum(case when r.first_release_at <= c.last_block_time then (select coalesce(sum(o.reserve_remaining), 0) from orders o
                 where o.platform_id = r.platform_id and o.merchant_external_id = r.merchant_id and o.chain_id = r.chain_id
                   and o.reserve_remaining > 0 and o.reserve_release_at <= c.last_block_time) else 0 end) as releasable,
               min(case when c.last_block_time is null or r.first_release_at > c.last_block_time then r.first_release_at
                 else (select min(o.reserve_release_at) from orders o
                   where o.platform_id = r.platform_id and o.merchant_external_id = r.merchant_id and o.chain_id = r.chain_id
                     and o.reserve_remaining > 0 and o.reserve_release_at > c.last_block_time) end) as next_release_at
          from balance_reserves r left join chain_cursors c on c.chain_id = r.chain_id
          where r.platform_id = ${p} and r.held > 0 ${merchantIs('r.merchant_id', m)}
          group by r.merchant_id
      ) r on r.merchant_id = k.merchant_id
    union all
    select 'paid', merchant_external_id, sum(${PAID}), sum(platform_fee), sum(reserve_hold), null, null, null, null, null, null
      from orders where platform_id = ${p} and paid_at is not null and paid_at >= ${since} ${merchantIs('merchant_external_id', m)}
      group by merchant_external_id
    union all
    select 'refunds', merchant_external_id, null, null, null, sum(reserve_portion), sum(funding_required), null, null, null, null
      from refunds where platform_id = ${p} and state = 'completed' and completed_at >= ${since} ${merchantIs('merchant_external_id', m)}
      group by merchant_external_id
    union all
    select 'authorized', merchant_external_id, null, null, null, null, null, null, null, null, sum(amount_authorized)
      from orders where platform_id = ${p} and state = 'authorized' ${merchantIs('merchant_external_id', m)}
      group by merchant_external_id`.execute(db)).rows,

  chainTime: async (db: Executor, platformId: string) => (await sql<{ t: Date | string | null }>`
    select c.last_block_time as t from platforms p join chain_cursors c on c.chain_id = p.chain_id where p.id = ${platformId}`.execute(db)).rows[0]?.t ?? null,

  /**
   * In one round trip: the earliest indexed chain time over every chain (no payment or refund with an earlier block
   * time can still arrive) and the platform's closing point (null before its first closing).
   */
  closingState: async (db: Executor, p: string) => {
    const r = (await sql<{ indexed: Date | string | null; closed: Date | string | null }>`select (select min(last_block_time) from chain_cursors) as indexed,
      (select closed_until from balance_closings where platform_id = ${p}) as closed`.execute(db)).rows[0];
    return { indexed: r?.indexed ? new Date(r.indexed) : null, closed: r?.closed ? new Date(r.closed) : null };
  },

  /** Platforms with at least one paid order: the only ones a closing can add anything for. */
  platformsToClose: async (db: Executor) =>
    (await sql<{ id: string }>`select p.id from platforms p where exists (select 1 from orders o where o.platform_id = p.id and o.paid_at is not null) order by p.id`.execute(db)).rows.map((r) => r.id),

  /**
   * For the rest of this transaction, plan each statement for its parameters. The service prepares every statement
   * (db/prepared.ts), and after five runs PostgreSQL may switch to a generic plan: for the balance's `paid_at >= $since`
   * that plan cannot know the range is one day of a platform's history and sums every paid order (70 ms at 100k
   * orders against 4 ms planned for the value).
   */
  planForParameters: (tx: Executor) => sql`set local plan_cache_mode = force_custom_plan`.execute(tx),

  closing: async (db: Executor, p: string) => {
    const t = (await sql<{ t: Date | string }>`select closed_until as t from balance_closings where platform_id = ${p}`.execute(db)).rows[0]?.t;
    return t === undefined ? null : new Date(t);
  },

  /** The platform's closing row, created at the epoch if missing, locked: one closer at a time per platform. */
  lockClosing: async (tx: Executor, p: string) => {
    await sql`insert into balance_closings (platform_id, closed_until) values (${p}, ${EPOCH}) on conflict (platform_id) do nothing`.execute(tx);
    return new Date((await sql<{ t: Date | string }>`select closed_until as t from balance_closings where platform_id = ${p} for update`.execute(tx)).rows[0]!.t);
  },

  /** Adds payments and refunds with block time in [from, to) to the closed sums and moves the closing point to `to`. */
  close: async (tx: Executor, p: string, from: Date, to: Date) => {
    await sql`insert into balance_closed_merchants (platform_id, merchant_id, gross, platform_fees, reserve_hold)
      select ${p}, merchant_external_id, sum(${PAID}), sum(platform_fee), sum(reserve_hold) from orders
      where platform_id = ${p} and paid_at is not null and paid_at >= ${from} and paid_at < ${to} group by merchant_external_id
      on conflict (platform_id, merchant_id) do update set gross = balance_closed_merchants.gross + excluded.gross,
        platform_fees = balance_closed_merchants.platform_fees + excluded.platform_fees, reserve_hold = balance_closed_merchants.reserve_hold + excluded.reserve_hold`.execute(tx);
    await sql`insert into balance_closed_merchants (platform_id, merchant_id, refunded_from_reserve, refunded_from_submitter)
      select ${p}, merchant_external_id, sum(reserve_portion), sum(funding_required) from refunds
      where platform_id = ${p} and state = 'completed' and completed_at >= ${from} and completed_at < ${to} group by merchant_external_id
      on conflict (platform_id, merchant_id) do update set refunded_from_reserve = balance_closed_merchants.refunded_from_reserve + excluded.refunded_from_reserve,
        refunded_from_submitter = balance_closed_merchants.refunded_from_submitter + excluded.refunded_from_submitter`.execute(tx);
    await sql`insert into balance_closed_days (platform_id, day, gross, payments)
      select ${p}, (paid_at at time zone 'UTC')::date, sum(${PAID}), count(*) from orders
      where platform_id = ${p} and paid_at is not null and paid_at >= ${from} and paid_at < ${to} group by 2
      on conflict (platform_id, day) do update set gross = balance_closed_days.gross + excluded.gross, payments = balance_closed_days.payments + excluded.payments`.execute(tx);
    await sql`insert into balance_closed_days (platform_id, day, refunded, refunds)
      select ${p}, (completed_at at time zone 'UTC')::date, sum(amount), count(*) from refunds
      where platform_id = ${p} and state = 'completed' and completed_at >= ${from} and completed_at < ${to} group by 2
      on conflict (platform_id, day) do update set refunded = balance_closed_days.refunded + excluded.refunded, refunds = balance_closed_days.refunds + excluded.refunds`.execute(tx);
    await sql`update balance_closings set closed_until = ${to}, updated_at = now() where platform_id = ${p}`.execute(tx);
  },

  /** One page of the ledger: each branch is an index range scan in (block time, id) order cut at limit, then merged. */
  ledgerPage: async (db: Executor, f: LedgerFilter): Promise<LedgerRow[]> => {
    const parts = BRANCHES.filter((b) => f.types.includes(b.type)).map((b) => sql`(${b.build(f)})`);
    if (parts.length === 0) return [];
    return (await sql<LedgerRow>`
      select t.*, l.log_index from (${sql.join(parts, sql` union all `)}) t
      left join chain_logs l on l.chain_id = t.chain_id and l.event_key = t.event_key
      order by t.block_time desc, t.id desc limit ${f.limit}`.execute(db)).rows;
  },

  /** Per UTC day since `since`: closed days, then live payments and refunds from the closing point `closed` on (same snapshot). */
  days: async (db: Executor, p: string, since: Date, closed: Date) => (await sql<DayRow>`
    select day, sum(gross) as gross, sum(refunded) as refunded, sum(payments) as payments, sum(refunds) as refunds from (
      select to_char(day, 'YYYY-MM-DD') as day, gross, refunded, payments, refunds from balance_closed_days
        where platform_id = ${p} and day >= (${since}::timestamptz at time zone 'UTC')::date
      union all
      select to_char(paid_at at time zone 'UTC', 'YYYY-MM-DD'), ${PAID}, 0, 1, 0 from orders
        where platform_id = ${p} and paid_at is not null and paid_at >= ${since > closed ? since : closed}
      union all
      select to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD'), 0, amount, 0, 1 from refunds
        where platform_id = ${p} and state = 'completed' and completed_at >= ${since > closed ? since : closed}
    ) d group by day order by day`.execute(db)).rows,
};

