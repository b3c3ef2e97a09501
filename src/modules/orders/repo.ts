import { sql, type Insertable, type RawBuilder, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../db/client.js';
import { precompiled } from '../../db/precompiled.js';
import type { Cursor } from '../../db/pagination.js';
import type { OrderState, OrdersTable } from '../../db/schema.js';
import { orderJsonSql } from './serialize-sql.js';
import type { Split } from './split.js';
import { ORDER_TRANSITIONS } from './state.js';

/**
 * What a paid order paid out, in SQL: its amount, or for capture_method manual the captured part. (An automatic
 * order's amount_captured equals its amount once confirmed; the amount is read so rows written before migration
 * 024, or by hand, count the same.)
 */
export const PAID_AMOUNT_SQL = "(case when capture_method = 'manual' then amount_captured else amount end)";

/** The states an OrderPaid moves an order from: unpaid (automatic), or authorized with its capture recorded (manual). */
const PAID_FROM = [...ORDER_TRANSITIONS.paid.from, ...ORDER_TRANSITIONS.capture.from];

export type OrderRow = Selectable<OrdersTable>;
/** What a transition names of each order it moved; the whole row is read on demand (OrderTransitioned.rows). */
export type MovedOrder = Pick<OrderRow, 'id' | 'platform_id' | 'checkout_session_id' | 'subscription_id'>;

/** A search term by its shape (list-orders.ts `searchOf`): each kind is an equality on indexed columns. */
export type OrderSearch = { kind: 'address'; values: string[] } | { kind: 'tx_hash'; value: string } | { kind: 'text'; value: string };
export type OrderListFilters = {
  state?: OrderState | undefined;
  merchantExternalId?: string | undefined;
  subscriptionId?: string | undefined;
  search?: OrderSearch | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
};

/** The platform's API key `keyId`, if it is unrevoked: the check of a key the caller has not read yet. */
const liveKey = (db: Executor, keyId: string, platformId: string) =>
  db.selectFrom('api_keys as k').select('k.id').where('k.id', '=', keyId).where('k.platform_id', '=', platformId).where('k.revoked_at', 'is', null);

const signingContextBase = (db: Executor, platformId: string, merchantExternalId: string) =>
  db.selectFrom('platforms as p')
    .leftJoin('merchants as m', (j) => j.onRef('m.platform_id', '=', 'p.id').on('m.external_id', '=', merchantExternalId))
    .select([
      'p.platform_fee_bps', 'p.platform_wallet', 'm.id as merchant_id', 'm.external_id', 'm.merchant_wallet', 'm.reserve_bps',
      'm.chain_id', 'm.state',
    ])
    .where('p.id', '=', platformId);
const signingContextQuery = precompiled(signingContextBase);
// No row unless the caller's key belongs to this platform and is unrevoked.
const signingContextWithKeyQuery = precompiled((db: Executor, platformId: string, merchantExternalId: string, keyId: string) =>
  signingContextBase(db, platformId, merchantExternalId).where((eb) => eb.exists(liveKey(db, keyId, platformId))));

/** The columns a new order sets; the rest keep their defaults. `prepare` in service.ts builds exactly these. */
export const NEW_ORDER_COLUMNS = [
  'id', 'platform_id', 'merchant_id', 'merchant_external_id', 'order_no', 'chain_id', 'token', 'token_address', 'amount',
  'service_fee_bps', 'platform_fee_bps', 'reserve_bps', 'service_fee', 'platform_fee', 'merchant_gross', 'reserve_hold',
  'merchant_available', 'metadata', 'state', 'pay_to', 'onchain_id', 'payer_address', 'merchant_wallet', 'platform_wallet',
  'eip712', 'signature', 'deadline_at', 'checkout_session_id', 'capture_method', 'capture_before', 'subscription_id', 'subscription_period',
] as const;
type NewOrderColumn = (typeof NEW_ORDER_COLUMNS)[number];
export type NewOrderRow = { [K in NewOrderColumn]: Insertable<OrdersTable>[K] };

/**
 * INSERT … SELECT of the new order's values (PostgreSQL types each parameter of the select list by the column
 * it goes into), selecting a row only if the platform and merchant rows still hold what the order froze from
 * them: the fee rate and wallet, the merchant's wallet, reserve and chain, and the merchant active.
 */
const insertIfCurrentBase = (db: Executor, values: unknown[]) => {
  const value = <C extends NewOrderColumn>(column: C) => values[NEW_ORDER_COLUMNS.indexOf(column)] as NewOrderRow[C];
  return db.selectNoFrom(NEW_ORDER_COLUMNS.map((column, i) => sql.val(values[i]).as(column)))
    .where((eb) => eb.exists(eb.selectFrom('platforms as p').innerJoin('merchants as m', 'm.platform_id', 'p.id').select('m.id')
      .where('p.id', '=', value('platform_id')).where('p.platform_fee_bps', '=', value('platform_fee_bps'))
      .where('p.platform_wallet', '=', value('platform_wallet')).where('m.id', '=', value('merchant_id')).where('m.state', '=', 'active')
      .where('m.merchant_wallet', '=', value('merchant_wallet')).where('m.reserve_bps', '=', value('reserve_bps'))
      .where('m.chain_id', '=', value('chain_id'))));
};
const insertIfCurrentQuery = precompiled((db: Executor, ...values: unknown[]) =>
  db.insertInto('orders').columns(NEW_ORDER_COLUMNS).expression(insertIfCurrentBase(db, values)).returningAll());
const insertIfCurrentWithKeyQuery = precompiled((db: Executor, keyId: string, ...values: unknown[]) =>
  db.insertInto('orders').columns(NEW_ORDER_COLUMNS)
    .expression(insertIfCurrentBase(db, values).where((eb) => eb.exists(liveKey(db, keyId, values[NEW_ORDER_COLUMNS.indexOf('platform_id')] as string))))
    .returningAll());

/** The columns an OrderPaid is checked against (paid-checks.ts): the batched path locks and reads only these. */
const PAID_CHECK_COLUMNS = [
  'id', 'onchain_id', 'platform_id', 'state', 'chain_id', 'token_address', 'amount', 'service_fee', 'platform_fee', 'reserve_hold',
  'merchant_wallet', 'platform_wallet', 'payer_address', 'capture_method', 'amount_captured', 'tx_hash',
] as const satisfies readonly (keyof OrderRow)[];
export type PaidCheckRow = Pick<OrderRow, (typeof PAID_CHECK_COLUMNS)[number]>;

export const ordersRepo = {
  insert: (db: Executor, row: Insertable<OrdersTable>) => db.insertInto('orders').values(row).returningAll().executeTakeFirstOrThrow(),

  /**
   * Inserts the order only if its platform and merchant rows still hold what it froze (fee rate, wallets,
   * reserve, chain; the merchant active) and, with `liveKeyId`, that API key of the platform is unrevoked:
   * one statement for an order signed from remembered rows. No row (undefined) when anything changed.
   */
  insertIfCurrent(db: Executor, row: NewOrderRow, liveKeyId: string | null): Promise<OrderRow | undefined> {
    const values = NEW_ORDER_COLUMNS.map((column) => row[column]);
    return liveKeyId === null
      ? insertIfCurrentQuery.executeTakeFirst(db, ...values) as Promise<OrderRow | undefined>
      : insertIfCurrentWithKeyQuery.executeTakeFirst(db, liveKeyId, ...values) as Promise<OrderRow | undefined>;
  },

  /**
   * Everything signing an order reads, in one round trip instead of two: the platform's fee rate and wallet,
   * and its merchant with this external id (null columns when there is none); with `liveKeyId`, also whether
   * that API key of the platform is still unrevoked (no row when it is not), in place of a lookup of its own.
   * The hot path of order and checkout creation, hence precompiled; the platforms and merchants services own
   * these rows everywhere else.
   */
  async signingContext(db: Executor, platformId: string, merchantExternalId: string, liveKeyId: string | null) {
    const r = liveKeyId === null
      ? await signingContextQuery.executeTakeFirst(db, platformId, merchantExternalId)
      : await signingContextWithKeyQuery.executeTakeFirst(db, platformId, merchantExternalId, liveKeyId);
    if (!r) return undefined;
    const platform = { platform_fee_bps: r.platform_fee_bps, platform_wallet: r.platform_wallet };
    if (r.merchant_id === null || r.external_id === null || r.merchant_wallet === null || r.reserve_bps === null || r.chain_id === null || r.state === null) {
      return { platform, merchant: null };
    }
    return { platform, merchant: { id: r.merchant_id, external_id: r.external_id, merchant_wallet: r.merchant_wallet, reserve_bps: r.reserve_bps, chain_id: r.chain_id, state: r.state } };
  },

  findById: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('orders').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst(),

  findAnyById: (db: Executor, id: string) => db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst(),
  /** Whole rows by id; one array parameter, so the statement text does not depend on the count. */
  byIds: (db: Executor, ids: readonly string[]) =>
    db.selectFrom('orders').selectAll().where(sql<boolean>`id = any(${[...ids]}::text[])`).execute(),

  findByOnchainId: (db: Executor, onchainId: string) =>
    db.selectFrom('orders').selectAll().where('onchain_id', '=', onchainId).executeTakeFirst(),

  list: (db: Executor, platformId: string, f: OrderListFilters, limit: number, cursor: Cursor | null) => {
    let q = db.selectFrom('orders').selectAll().where('platform_id', '=', platformId);
    if (f.state) q = q.where('state', '=', f.state);
    if (f.merchantExternalId) q = q.where('merchant_external_id', '=', f.merchantExternalId);
    // orders_subscription_idx (subscription_id, created_at desc), migration 029: a subscription's charges by index.
    if (f.subscriptionId) q = q.where('subscription_id', '=', f.subscriptionId);
    if (f.from) q = q.where('created_at', '>=', f.from);
    if (f.to) q = q.where('created_at', '<', f.to);
    const s = f.search;
    if (s?.kind === 'address') q = q.where((eb) => eb.or([eb('paid_by', 'in', s.values), eb('payer_address', 'in', s.values)]));
    if (s?.kind === 'tx_hash') q = q.where('tx_hash', '=', s.value);
    if (s?.kind === 'text') q = q.where((eb) => eb.or([eb('id', '=', s.value), eb('order_no', '=', s.value)]));
    // A row comparison, not `a < x or (a = x and id < y)`: PostgreSQL uses it as an index condition and
    // starts the scan at the cursor; the OR form is a filter that re-reads every newer row (EXPLAIN in
    // docs/performance.md: 11 ms at 10k rows deep, 0.1 ms with the row comparison).
    if (cursor) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.createdAt, cursor.id)));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  },

  /**
   * An OrderCaptured on an authorized order (apply-captured.ts): what was captured, the split of it, and the
   * capture's transaction, which its OrderPaid must carry. The state moves with that OrderPaid.
   */
  recordCapture: (db: Executor, id: string, captured: bigint, s: Split, txHash: string, now: Date) =>
    db.updateTable('orders').set({
      amount_captured: captured, service_fee: s.serviceFee, platform_fee: s.platformFee, merchant_gross: s.merchantGross,
      reserve_hold: s.reserveHold, merchant_available: s.merchantAvailable, tx_hash: txHash, updated_at: now,
    }).where('id', '=', id).where('state', '=', 'authorized').execute(),

  /** Compare-and-set: the update happens only from one of the allowed states; no row → caller re-reads. */
  transition: (db: Executor, id: string, from: readonly OrderState[], set: Updateable<OrdersTable>, now: Date) =>
    db.updateTable('orders').set({ ...set, updated_at: now })
      .where('id', '=', id).where('state', 'in', from as OrderState[]).returningAll().executeTakeFirst(),

  /** The order with this on-chain id, locked (the indexer's one-log OrderPaid path). */
  lockByOnchainId: (db: Executor, onchainId: string) =>
    db.selectFrom('orders').selectAll().where('onchain_id', '=', onchainId).forUpdate().executeTakeFirst(),

  /** The indexer's batched OrderPaid path: locks the orders of these on-chain ids (in id order), reading only the columns a payment is checked against. */
  lockByOnchainIds: async (db: Executor, onchainIds: string[]) =>
    (await sql<PaidCheckRow>`select ${sql.join(PAID_CHECK_COLUMNS.map((c) => sql.ref(c)))} from orders where onchain_id = any(${onchainIds}::text[]) order by id for update`.execute(db)).rows,

  /**
   * The `paid` (and `capture`) transition for many orders and their order.confirmed events, in one statement
   * (UPDATE … FROM unnest): each row moves only from the states those leave (compare-and-set, as
   * `transition`), and each row that moved gets its event `eventId`, with its public object built in SQL from
   * the row as written (serialize-sql.ts), by the outbox CTEs `outbox` appends (events' outboxCtes, reading
   * CTE `paid`). Only the moved orders' ids come back: the rows never leave the database.
   */
  confirmPaidMany: async (db: Executor, p: { id: string[]; eventId: string[]; paidBy: string[]; txHash: string[]; block: string[]; paidAt: string[]; releaseAt: string[] }, now: Date, outbox: (source: string) => RawBuilder<unknown>) =>
    (await sql<MovedOrder>`
      with paid as (
        update orders o set state = ${ORDER_TRANSITIONS.paid.to}, paid_by = u.paid_by, tx_hash = u.tx_hash, block_number = u.block::int8,
          paid_at = u.paid_at::timestamptz, confirmed_at = ${now.toISOString()}::timestamptz, reserve_remaining = o.reserve_hold,
          reserve_release_at = u.release_at::timestamptz, updated_at = ${now.toISOString()}::timestamptz,
          amount_authorized = case when o.capture_method = 'automatic' then o.amount else o.amount_authorized end,
          amount_captured = case when o.capture_method = 'automatic' then o.amount else o.amount_captured end
        from unnest(${p.id}::text[], ${p.eventId}::text[], ${p.paidBy}::text[], ${p.txHash}::text[], ${p.block}::text[], ${p.paidAt}::text[], ${p.releaseAt}::text[])
          as u(id, event_id, paid_by, tx_hash, block, paid_at, release_at)
        where o.id = u.id and o.state = any(${PAID_FROM}::text[])
        returning o.id, o.platform_id, o.checkout_session_id, o.subscription_id, u.event_id, ${orderJsonSql('o')} as body),
      ${outbox('paid')}
      select id, platform_id, checkout_session_id, subscription_id from paid`.execute(db)).rows,

  /**
   * Pending orders of the chain whose deadline (last second payable) is before `indexedUntil`, locked so
   * concurrent sweepers (several instances) take disjoint rows.
   */
  lockDue: (db: Executor, chainId: number, indexedUntil: Date, limit: number) =>
    db.selectFrom('orders').select(['id']).where('state', '=', 'pending_payment').where('chain_id', '=', chainId)
      .where('deadline_at', '<', indexedUntil).orderBy('deadline_at').limit(limit).forUpdate().skipLocked().execute(),

  /**
   * The platform's order counts (migration 039): its folded row plus the deltas not folded yet, in one statement (one
   * snapshot: a fold committing meanwhile is seen whole or not at all). Index probes, whatever the platform's size.
   */
  counts: async (db: Executor, platformId: string) =>
    (await sql<{ total: string; pending: string; confirmed: string }>`
      select (coalesce(c.total, 0) + coalesce(d.total, 0))::text as total, (coalesce(c.pending, 0) + coalesce(d.pending, 0))::text as pending,
        (coalesce(c.confirmed, 0) + coalesce(d.confirmed, 0))::text as confirmed
      from (select sum(total) as total, sum(pending) as pending, sum(confirmed) as confirmed from order_count_deltas where platform_id = ${platformId}) d
      left join order_counts c on c.platform_id = ${platformId}`.execute(db)).rows[0]!,

  /**
   * Paid out since `since` (confirmed_at), base units. Within the minutes kept (the last 3 days, migration 039): the
   * orders of the window's first, partial minute, then the folded minutes and the deltas after it, one statement. An
   * older window (a clock moved back) sums the orders themselves.
   */
  grossSince: async (db: Executor, platformId: string, since: Date) =>
    (await sql<{ gross: string }>`
      select (case when ${since}::timestamptz >= now() - interval '2 days' then
        coalesce((select sum(${sql.raw(PAID_AMOUNT_SQL)}) from orders where platform_id = ${platformId}
          and confirmed_at >= ${since}::timestamptz and confirmed_at < date_trunc('minute', ${since}::timestamptz) + interval '1 minute'), 0)
        + coalesce((select sum(gross) from order_gross_minutes where platform_id = ${platformId}
          and minute >= date_trunc('minute', ${since}::timestamptz) + interval '1 minute'), 0)
        + coalesce((select sum(gross) from order_count_deltas where platform_id = ${platformId}
          and minute >= date_trunc('minute', ${since}::timestamptz) + interval '1 minute'), 0)
      else coalesce((select sum(${sql.raw(PAID_AMOUNT_SQL)}) from orders where platform_id = ${platformId} and confirmed_at >= ${since}::timestamptz), 0)
      end)::text as gross`.execute(db)).rows[0]!,

  /** Paid out per UTC day of confirmed_at from the day of `since` (a UTC day start): folded days plus the deltas not folded yet. */
  grossDaily: async (db: Executor, platformId: string, since: Date) =>
    (await sql<{ day: string; gross: string; count: string }>`
      select to_char(day, 'YYYY-MM-DD') as day, sum(gross)::text as gross, sum(paid)::text as count from (
        select day, gross, paid from order_gross_days where platform_id = ${platformId} and day >= (${since}::timestamptz at time zone 'UTC')::date
        union all
        select (minute at time zone 'UTC')::date, gross, paid from order_count_deltas where platform_id = ${platformId}
          and minute >= ${since}::timestamptz) g
      group by day having sum(paid) <> 0 or sum(gross) <> 0 order by day`.execute(db)).rows,

  /**
   * Folds up to `limit` of the oldest deltas (any platform) into order_counts, order_gross_days and (the last 3 days)
   * order_gross_minutes, in one statement: the rows it deletes are the rows it adds, and a concurrent folder skips the
   * rows this one holds. Rows are upserted in key order, so two folders never wait on each other in a cycle.
   * Returns how many deltas it folded.
   */
  foldCounts: async (db: Executor, limit: number) =>
    Number((await sql<{ n: string }>`
      with moved as (
        delete from order_count_deltas where id in (select id from order_count_deltas order by id limit ${limit} for update skip locked)
        returning platform_id, total, pending, confirmed, minute, gross, paid),
      counts as (
        insert into order_counts (platform_id, total, pending, confirmed)
          select platform_id, sum(total), sum(pending), sum(confirmed) from moved group by platform_id
          having sum(total) <> 0 or sum(pending) <> 0 or sum(confirmed) <> 0 order by platform_id
        on conflict (platform_id) do update set total = order_counts.total + excluded.total,
          pending = order_counts.pending + excluded.pending, confirmed = order_counts.confirmed + excluded.confirmed),
      days as (
        insert into order_gross_days (platform_id, day, gross, paid)
          select platform_id, (minute at time zone 'UTC')::date, sum(gross), sum(paid) from moved where minute is not null group by 1, 2 order by 1, 2
        on conflict (platform_id, day) do update set gross = order_gross_days.gross + excluded.gross, paid = order_gross_days.paid + excluded.paid),
      minutes as (
        insert into order_gross_minutes (platform_id, minute, gross, paid)
          select platform_id, minute, sum(gross), sum(paid) from moved where minute >= now() - interval '3 days' group by 1, 2 order by 1, 2
        on conflict (platform_id, minute) do update set gross = order_gross_minutes.gross + excluded.gross, paid = order_gross_minutes.paid + excluded.paid)
      select count(*)::text as n from moved`.execute(db)).rows[0]!.n),

  /** Drops the folded minutes older than 3 days (gross_24h reads them only within the last 2). */
  pruneGrossMinutes: async (db: Executor) =>
    Number((await sql`delete from order_gross_minutes where minute < now() - interval '3 days'`.execute(db)).numAffectedRows ?? 0n),
};
