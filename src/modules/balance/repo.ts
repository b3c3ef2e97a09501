import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { BalanceTransactionType } from './schemas.js';

/**
 * All SQL of the balance module. It reads orders, refunds, settlements, settlement_items and chain tables, and writes
 * only its own closing tables (balance_closings, balance_closed_*), from the closing worker (close-all.ts).
 */

type Int = bigint | string | number | null;
/** One row per merchant and source: closed sums, live payments, live refunds, or reserves held (others null). */
export type BalancePartRow = {
  src: 'closed' | 'paid' | 'refunds' | 'reserves'; merchant_id: string; gross: Int; platform_fees: Int; reserve_hold: Int;
  from_reserve: Int; from_submitter: Int; held: Int; releasable: Int; next_release_at: Date | string | null;
};
export type LedgerRow = {
  id: string; type: BalanceTransactionType; status: 'posted' | 'failed'; amount: Int; from_address: string | null; to_address: string | null;
  merchant_id: string; order_id: string; refund_id: string | null; settlement_id: string | null; chain_id: number;
  tx_hash: string | null; block_time: Date | string; event_key: string; log_index: number | null;
};
export type LedgerFilter = {
  platformId: string; merchantId?: string | undefined; types: readonly BalanceTransactionType[];
  from?: Date | undefined; to?: Date | undefined; before?: { time: Date; id: string } | null; limit: number;
  serviceTreasury: string | null;
};
export type DayRow = { day: string; gross: Int; refunded: Int; payments: Int; refunds: Int };

const merchantIs = (col: string, m: string | undefined) => (m === undefined ? sql`` : sql`and ${sql.ref(col)} = ${m}`);
const EPOCH = sql`'1970-01-01T00:00:00Z'::timestamptz`;

export const balanceRepo = {
  merchantExists: async (db: Executor, platformId: string, externalId: string) =>
    (await sql<{ one: number }>`select 1 as one from merchants where platform_id = ${platformId} and external_id = ${externalId}`.execute(db)).rows.length > 0,

  /**
   * Everything GET /v1/balance sums: the closed sums, payments and refunds since the closing point `since` (read in
   * the same snapshot, see get-balance.ts), and the reserve still held with what the indexed chain time (the
   * cursor block's time) lets go. `since` is a value, not a subquery, so the planner sees a one-day index range.
   */
  balanceParts: async (db: Executor, p: string, since: Date, m?: string) => (await sql<BalancePartRow>`
    select 'closed' as src, merchant_id, gross, platform_fees, reserve_hold, refunded_from_reserve as from_reserve,
           refunded_from_submitter as from_submitter, null::int8 as held, null::int8 as releasable, null::timestamptz as next_release_at
      from balance_closed_merchants where platform_id = ${p} ${merchantIs('merchant_id', m)}
    union all
    select 'paid', merchant_external_id, sum(amount), sum(platform_fee), sum(reserve_hold), null, null, null, null, null
      from orders where platform_id = ${p} and paid_at is not null and paid_at >= ${since} ${merchantIs('merchant_external_id', m)}
      group by merchant_external_id
    union all
    select 'refunds', merchant_external_id, null, null, null, sum(reserve_portion), sum(funding_required), null, null, null
      from refunds where platform_id = ${p} and state = 'completed' and completed_at >= ${since} ${merchantIs('merchant_external_id', m)}
      group by merchant_external_id
    union all
    select 'reserves', o.merchant_external_id, null, null, null, null, null, sum(o.reserve_remaining),
           coalesce(sum(o.reserve_remaining) filter (where o.reserve_release_at <= c.last_block_time), 0),
           min(o.reserve_release_at) filter (where c.last_block_time is null or o.reserve_release_at > c.last_block_time)
      from orders o left join chain_cursors c on c.chain_id = o.chain_id
      where o.platform_id = ${p} and o.reserve_remaining > 0 ${merchantIs('o.merchant_external_id', m)}
      group by o.merchant_external_id`.execute(db)).rows,

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
      select ${p}, merchant_external_id, sum(amount), sum(platform_fee), sum(reserve_hold) from orders
      where platform_id = ${p} and paid_at is not null and paid_at >= ${from} and paid_at < ${to} group by merchant_external_id
      on conflict (platform_id, merchant_id) do update set gross = balance_closed_merchants.gross + excluded.gross,
        platform_fees = balance_closed_merchants.platform_fees + excluded.platform_fees, reserve_hold = balance_closed_merchants.reserve_hold + excluded.reserve_hold`.execute(tx);
    await sql`insert into balance_closed_merchants (platform_id, merchant_id, refunded_from_reserve, refunded_from_submitter)
      select ${p}, merchant_external_id, sum(reserve_portion), sum(funding_required) from refunds
      where platform_id = ${p} and state = 'completed' and completed_at >= ${from} and completed_at < ${to} group by merchant_external_id
      on conflict (platform_id, merchant_id) do update set refunded_from_reserve = balance_closed_merchants.refunded_from_reserve + excluded.refunded_from_reserve,
        refunded_from_submitter = balance_closed_merchants.refunded_from_submitter + excluded.refunded_from_submitter`.execute(tx);
    await sql`insert into balance_closed_days (platform_id, day, gross, payments)
      select ${p}, (paid_at at time zone 'UTC')::date, sum(amount), count(*) from orders
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
      select to_char(paid_at at time zone 'UTC', 'YYYY-MM-DD'), amount, 0, 1, 0 from orders
        where platform_id = ${p} and paid_at is not null and paid_at >= ${since > closed ? since : closed}
      union all
      select to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD'), 0, amount, 0, 1 from refunds
        where platform_id = ${p} and state = 'completed' and completed_at >= ${since > closed ? since : closed}
    ) d group by day order by day`.execute(db)).rows,
};

type Branch = { type: BalanceTransactionType; build: (f: LedgerFilter) => RawBuilder<unknown> };

/** Keyset and range on a branch's block-time column `t` and its id expression. */
function window(t: string, id: RawBuilder<unknown>, f: LedgerFilter) {
  const from = f.from ? sql`and ${sql.ref(t)} >= ${f.from}` : sql``;
  const to = f.to ? sql`and ${sql.ref(t)} < ${f.to}` : sql``;
  const before = f.before ? sql`and ${sql.ref(t)} <= ${f.before.time} and (${sql.ref(t)} < ${f.before.time} or ${id} < ${f.before.id})` : sql``;
  return sql`${from} ${to} ${before} order by ${sql.ref(t)} desc, ${id} desc limit ${f.limit}`;
}

const paymentLeg = (type: BalanceTransactionType, leg: string, amount: string, to: (f: LedgerFilter) => RawBuilder<unknown>): Branch => ({
  type,
  build: (f) => {
    const id = sql`('btx_' || substr(o.id, 5) || ${leg})`;
    return sql`select ${id} as id, ${type}::text as type, 'posted'::text as status, ${sql.ref(`o.${amount}`)} as amount,
      o.paid_by as from_address, ${to(f)}::text as to_address, o.merchant_external_id as merchant_id, o.id as order_id,
      null::text as refund_id, null::text as settlement_id, o.chain_id, o.tx_hash, o.paid_at as block_time,
      'OrderPaid:' || lower(o.onchain_id) as event_key
      from orders o where o.platform_id = ${f.platformId} and o.paid_at is not null and ${sql.ref(`o.${amount}`)} > 0
      ${merchantIs('o.merchant_external_id', f.merchantId)} ${window('o.paid_at', id, f)}`;
  },
});

const refundLeg = (type: BalanceTransactionType, leg: string, amount: string, from: RawBuilder<unknown>): Branch => ({
  type,
  build: (f) => {
    const id = sql`('btx_' || substr(r.id, 4) || ${leg})`;
    return sql`select ${id} as id, ${type}::text as type, 'posted'::text as status, ${sql.ref(`r.${amount}`)} as amount,
      ${from}::text as from_address, r.to_address, r.merchant_external_id as merchant_id, o.id as order_id,
      r.id as refund_id, null::text as settlement_id, o.chain_id, r.tx_hash, r.completed_at as block_time,
      'Refunded:' || lower(r.onchain_id) as event_key
      from refunds r join orders o on o.id = r.order_id
      where r.platform_id = ${f.platformId} and r.state = 'completed' and ${sql.ref(`r.${amount}`)} > 0
      ${merchantIs('r.merchant_external_id', f.merchantId)} ${window('r.completed_at', id, f)}`;
  },
});

const releaseLeg = (type: BalanceTransactionType, leg: string, state: string): Branch => ({
  type,
  build: (f) => {
    const id = sql`('btx_' || substr(s.id, 5) || substr(i.order_id, 5) || ${leg})`;
    const event = type === 'reserve_release' ? 'ReserveReleased:' : 'ReserveReleaseFailed:';
    return sql`select ${id} as id, ${type}::text as type, ${state === 'released' ? 'posted' : 'failed'}::text as status,
      coalesce(i.released_amount, i.amount) as amount, o.pay_to as from_address, o.merchant_wallet as to_address,
      o.merchant_external_id as merchant_id, o.id as order_id, null::text as refund_id, s.id as settlement_id, s.chain_id,
      s.tx_hash, s.confirmed_at as block_time, ${event} || lower(s.onchain_id) || ':' || lower(o.onchain_id) as event_key
      from settlements s join settlement_items i on i.settlement_id = s.id join orders o on o.id = i.order_id
      where s.confirmed_at is not null and i.platform_id = ${f.platformId} and i.state = ${state}
      ${f.merchantId === undefined ? sql`` : sql`and o.platform_id = ${f.platformId} and o.paid_at is not null`}
      ${merchantIs('o.merchant_external_id', f.merchantId)} ${window('s.confirmed_at', id, f)}`;
  },
});

const BRANCHES: Branch[] = [
  // The treasury the router paid the fee to: the last ServiceTreasuryUpdated before the payment's log (indexed
  // from the router's deployment); SERVICE_TREASURY only for payments older than any indexed update.
  paymentLeg('payment_service_fee', 'sf', 'service_fee', (f) => sql`coalesce((select t.treasury from router_treasury_updates t
    where t.chain_id = o.chain_id and t.router = lower(o.pay_to) and (t.block_number, t.log_index) < (o.block_number,
      coalesce((select l.log_index from chain_logs l where l.chain_id = o.chain_id and l.event_key = 'OrderPaid:' || lower(o.onchain_id)), 2147483647))
    order by t.block_number desc, t.log_index desc limit 1), ${f.serviceTreasury})`),
  paymentLeg('payment_platform_fee', 'pf', 'platform_fee', () => sql`o.platform_wallet`),
  paymentLeg('payment_merchant_available', 'ma', 'merchant_available', () => sql`o.merchant_wallet`),
  paymentLeg('payment_reserve_hold', 'rh', 'reserve_hold', () => sql`o.pay_to`),
  refundLeg('refund_from_reserve', 'rr', 'reserve_portion', sql`o.pay_to`),
  // The funder: the sender of the USDC transfer the Refunded event's fromSubmitter accounts for (null only for
  // refunds completed before migration 018).
  refundLeg('refund_from_submitter', 'rs', 'funding_required', sql`r.funded_by`),
  releaseLeg('reserve_release', 'rl', 'released'),
  releaseLeg('reserve_release_failed', 'rf', 'release_failed'),
];
