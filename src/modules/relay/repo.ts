import { sql, type ColumnType, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Db, Executor } from '../../db/client.js';
import type { DB } from '../../db/schema.js';
import type { IntentRow } from '../operator-txs/enqueue.js';

/** Tables of migrations/015_relays.sql and 022_relay_abuse.sql (only this module writes them). */
type Text = ColumnType<string | null, string | null | undefined, string | null>;
export type RelayState = 'pending' | 'succeeded' | 'failed';
export interface RelaysTable {
  id: string;
  order_id: string;
  platform_id: string;
  chain_id: number;
  via: 'checkout' | 'api' | 'x402';
  payer: string;
  valid_after: string;
  valid_before: string;
  nonce: string;
  authorization_sig: string;
  state: RelayState;
  operator_tx_id: string;
  error_code: Text;
  error_message: Text;
  tx_hash: Text;
  gas_used: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  gas_cost_wei: Text;
  reserved_wei: ColumnType<string, string | undefined, string>;
  day: ColumnType<string, string, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
type Count = ColumnType<number, number | undefined, number>;
interface UsageTable {
  platform_id: string;
  day: string;
  relays: Count;
  reverted: Count;
  refused: Count;
  gas_cost_wei: ColumnType<string, string | undefined, string>;
}
interface PayersTable {
  payer: string;
  reverted: Count;
  refused: Count;
  banned_until: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  ban_reason: Text;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
interface OrderBansTable { order_id: string; payer: string; reason: string; created_at: ColumnType<Date, Date | undefined, never> }
interface BudgetDaysTable {
  chain_id: number;
  day: string;
  reserved_wei: ColumnType<string, string | undefined, string>;
  spent_wei: ColumnType<string, string | undefined, string>;
  refused_wei: Text;
  alerted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}
type Ext = {
  relays: RelaysTable; relay_daily_usage: UsageTable; relay_payers: PayersTable; relay_order_bans: OrderBansTable;
  relayer_budget_days: BudgetDaysTable; operator_txs: { id: string; tx_hash: string | null };
};
const x = (db: Executor) => (db as Db).withTables<Ext>() as unknown as Kysely<DB & Ext>;

export type RelayRow = Selectable<RelaysTable>;
/** A relay with the hash of its latest broadcast attempt (operator_txs, read only). */
export type RelayView = RelayRow & { sent_tx_hash: string | null };

/** Relay transitions: the one table the submitter and the outcome handler share. */
export const RELAY_TRANSITIONS = {
  succeed: { from: ['pending'], to: 'succeeded' },
  fail: { from: ['pending'], to: 'failed' },
} as const satisfies Record<string, { from: readonly RelayState[]; to: RelayState }>;

const view = (db: Executor) =>
  x(db).selectFrom('relays as r').leftJoin('operator_txs as t', 't.id', 'r.operator_tx_id').selectAll('r').select('t.tx_hash as sent_tx_hash');

export const relayRepo = {
  /**
   * The order as the relay checks it (any platform's: the public path has only the session token) and what is
   * known of this payer, in one round trip: a relay in flight for the order or from the payer (advisory: it
   * spares a doomed simulation; the unique indexes decide at `accept`), the payer's ban, and its ban on this order.
   */
  findOrder: (db: Executor, id: string, payer: string) =>
    x(db).selectFrom('orders').selectAll('orders')
      .select((eb) => eb.exists(eb.selectFrom('relays').select(sql`1`.as('one')).whereRef('relays.order_id', '=', 'orders.id').where('relays.state', '=', 'pending')).as('relay_in_flight'))
      .select((eb) => eb.exists(eb.selectFrom('relays').select(sql`1`.as('one')).where('relays.payer', '=', payer).where('relays.state', '=', 'pending')).as('payer_in_flight'))
      .select((eb) => eb.selectFrom('relay_payers').select('banned_until').where('relay_payers.payer', '=', payer).as('banned_until'))
      .select((eb) => eb.selectFrom('relay_payers').select('ban_reason').where('relay_payers.payer', '=', payer).as('ban_reason'))
      .select((eb) => eb.selectFrom('relay_order_bans').select('reason').whereRef('relay_order_bans.order_id', '=', 'orders.id').where('relay_order_bans.payer', '=', payer).as('order_ban'))
      .where('orders.id', '=', id).executeTakeFirst(),

  /**
   * Accepts a relay in ONE statement: the reservation of the relayer's day while it stays within `budget`, then
   * a slot of the platform's day while it stays within `cap`, the relayer's outbox intent (operator-txs'
   * `intentRow`) and the relay row, each inserted only from the row before it. Returns which stages took and
   * the relay when all did. A stage refused leaves the stages before it written: the caller runs this in a
   * transaction and rolls it back. A second relay in flight for the order or from the payer fails the statement
   * (relays_in_flight_idx, relays_payer_in_flight_idx).
   */
  async accept(db: Executor, a: { cap: number; budget: bigint; intent: IntentRow; relay: Omit<Insertable<RelaysTable>, 'operator_tx_id'> & { day: string; reserved_wei: string } }) {
    const i = a.intent;
    const r = a.relay;
    const res = await sql<RelayRow & { budget_ok: boolean; slot_ok: boolean }>`
      with budget as (
        insert into relayer_budget_days (chain_id, day, reserved_wei)
        select ${r.chain_id}::int, ${r.day}::date, ${r.reserved_wei}::numeric where ${r.reserved_wei}::numeric <= ${a.budget.toString()}::numeric
        on conflict (chain_id, day) do update set reserved_wei = relayer_budget_days.reserved_wei + excluded.reserved_wei
          where relayer_budget_days.reserved_wei + relayer_budget_days.spent_wei + excluded.reserved_wei <= ${a.budget.toString()}::numeric
        returning 1
      ), slot as (
        insert into relay_daily_usage (platform_id, day, relays) select ${r.platform_id}, ${r.day}::date, 1 from budget where ${a.cap}::int > 0
        on conflict (platform_id, day) do update set relays = relay_daily_usage.relays + 1
          where relay_daily_usage.relays < ${a.cap}
        returning 1
      ), intent as (
        insert into operator_txs (id, chain_id, purpose, ref_id, to_address, calldata, state, key_role, gas_limit, max_fee_cap)
        select ${i.id}, ${i.chain_id}::int, ${i.purpose}, ${i.ref_id}, ${i.to_address}, ${i.calldata}, ${i.state}, ${i.key_role}, ${i.gas_limit?.toString() ?? null}::bigint,
          ${i.max_fee_cap?.toString() ?? null}::numeric
        from slot
        returning id
      ), rel as (
        insert into relays (id, order_id, platform_id, chain_id, via, payer, valid_after, valid_before, nonce, authorization_sig, state, operator_tx_id, day, reserved_wei)
        select ${r.id}, ${r.order_id}, ${r.platform_id}, ${r.chain_id}::int, ${r.via}, ${r.payer}, ${r.valid_after}::numeric, ${r.valid_before}::numeric,
          ${r.nonce}, ${r.authorization_sig}, ${r.state}, intent.id, ${r.day}::date, ${r.reserved_wei}::numeric
        from intent
        returning *
      )
      select exists (select 1 from budget) as budget_ok, exists (select 1 from slot) as slot_ok, rel.* from (select 1) as one left join rel on true`.execute(db);
    const { budget_ok, slot_ok, ...row } = res.rows[0]!;
    return { budgetOk: budget_ok, slotOk: slot_ok, row: row.id ? (row as RelayRow) : undefined };
  },

  /** `day` as YYYY-MM-DD text (drivers differ on how they hand a date back). */
  findByOperatorTx: (tx: Executor, operatorTxId: string) =>
    x(tx).selectFrom('relays').select(['id', 'order_id', 'platform_id', 'chain_id', 'payer', 'state', 'via', sql<string>`reserved_wei::text`.as('reserved'), sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day_text')])
      .where('operator_tx_id', '=', operatorTxId).executeTakeFirst(),

  latestForOrder: (db: Executor, orderId: string): Promise<RelayView | undefined> =>
    view(db).where('r.order_id', '=', orderId).orderBy('r.created_at', 'desc').orderBy('r.id').limit(1).executeTakeFirst() as Promise<RelayView | undefined>,

  transition: (tx: Executor, id: string, t: keyof typeof RELAY_TRANSITIONS, set: Partial<Pick<RelayRow, 'error_code' | 'error_message' | 'tx_hash' | 'gas_used' | 'gas_cost_wei'>>) =>
    x(tx).updateTable('relays').set({ ...set, state: RELAY_TRANSITIONS[t].to, updated_at: new Date() })
      .where('id', '=', id).where('state', 'in', [...RELAY_TRANSITIONS[t].from]).returningAll().executeTakeFirst(),

  /** What the session read checks of a platform's day, the relayer's day and (when the order is locked to one) the payer. */
  dayState: async (db: Executor, q: { platformId: string; chainId: number; day: string; payer: string | null }) => {
    const r = await sql<{ relays: number | null; reserved: string | null; spent: string | null; refused: string | null; banned_until: bigint | null }>`
      select (select relays from relay_daily_usage where platform_id = ${q.platformId} and day = ${q.day}::date) as relays,
        b.reserved_wei::text as reserved, b.spent_wei::text as spent, b.refused_wei::text as refused,
        (select banned_until from relay_payers where payer = ${q.payer}) as banned_until
      from (select 1) as one left join relayer_budget_days b on b.chain_id = ${q.chainId} and b.day = ${q.day}::date`.execute(db);
    const row = r.rows[0]!;
    return { used: row.relays ?? 0, reserved: BigInt(row.reserved ?? '0'), spent: BigInt(row.spent ?? '0'), refused: row.refused === null ? null : BigInt(row.refused), bannedUntil: row.banned_until };
  },

  /** The relayer's day on a chain (zeros when nothing was reserved yet). */
  budgetDay: async (db: Executor, chainId: number, day: string) => {
    const b = await x(db).selectFrom('relayer_budget_days').select([sql<string>`reserved_wei::text`.as('reserved'), sql<string>`spent_wei::text`.as('spent'), sql<string | null>`refused_wei::text`.as('refused')])
      .where('chain_id', '=', chainId).where('day', '=', sql<string>`${day}::date`).executeTakeFirst();
    return { reserved: BigInt(b?.reserved ?? '0'), spent: BigInt(b?.spent ?? '0'), refused: b?.refused ? BigInt(b.refused) : null };
  },

  /**
   * A reservation the day could not take: noted (the session read compares its headroom to it); true for exactly one
   * caller a day (alert once). The alert is claimed by a conditional update, not by comparing timestamps: two
   * refusals in the same clock tick (PGlite's clock is coarse) must not both see themselves first, and under
   * PostgreSQL's read committed the second waits on the row and re-reads `alerted_at` once the first commits.
   */
  budgetRefused: async (db: Executor, chainId: number, day: string, wei: bigint): Promise<boolean> => {
    await sql`insert into relayer_budget_days (chain_id, day, refused_wei) values (${chainId}, ${day}::date, ${wei.toString()}::numeric)
      on conflict (chain_id, day) do update set refused_wei = excluded.refused_wei`.execute(db);
    const first = await sql`update relayer_budget_days set alerted_at = now() where chain_id = ${chainId} and day = ${day}::date and alerted_at is null returning 1`.execute(db);
    return first.rows.length === 1;
  },

  /** On a relay's outcome: its reservation leaves the relayer's day, what it really cost joins it. */
  settleBudget: (tx: Executor, chainId: number, day: string, reserved: bigint, cost: bigint) =>
    sql`update relayer_budget_days set reserved_wei = greatest(reserved_wei - ${reserved.toString()}::numeric, 0), spent_wei = spent_wei + ${cost.toString()}::numeric
      where chain_id = ${chainId} and day = ${day}::date`.execute(tx),

  /** A relay that did not pay: its slot of the platform's cap is given back and it is counted as reverted. */
  releaseSlot: (tx: Executor, platformId: string, day: string) =>
    sql`update relay_daily_usage set relays = greatest(relays - 1, 0), reverted = reverted + 1 where platform_id = ${platformId} and day = ${day}::date`.execute(tx),

  addGas: (tx: Executor, platformId: string, day: string, wei: bigint) =>
    sql`update relay_daily_usage set gas_cost_wei = gas_cost_wei + ${wei.toString()}::numeric where platform_id = ${platformId} and day = ${day}::date`.execute(tx),

  /** The payer caused a relay to fail: counted, banned until `until` (chain clock, never shortened) and from this order for good. */
  banPayer: async (tx: Executor, b: { payer: string; orderId: string; until: bigint; reason: string }) => {
    await sql`insert into relay_payers (payer, reverted, banned_until, ban_reason) values (${b.payer}, 1, ${b.until.toString()}::bigint, ${b.reason})
      on conflict (payer) do update set reverted = relay_payers.reverted + 1, banned_until = greatest(relay_payers.banned_until, excluded.banned_until),
        ban_reason = excluded.ban_reason, updated_at = now()`.execute(tx);
    await sql`insert into relay_order_bans (order_id, payer, reason) values (${b.orderId}, ${b.payer}, ${b.reason}) on conflict do nothing`.execute(tx);
  },

  /** A request refused because the payer is banned: counted for the payer and the platform's day, one statement. */
  countRefused: (db: Executor, payer: string, platformId: string, day: string) =>
    sql`with p as (update relay_payers set refused = refused + 1, updated_at = now() where payer = ${payer} returning 1)
      insert into relay_daily_usage (platform_id, day, refused) values (${platformId}, ${day}::date, 1)
      on conflict (platform_id, day) do update set refused = relay_daily_usage.refused + 1`.execute(db),

  usageSince: (db: Executor, platformId: string, since: string) =>
    x(db).selectFrom('relay_daily_usage').select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), 'relays', 'reverted', 'refused', sql<string>`gas_cost_wei::text`.as('gas_cost_wei')])
      .where('platform_id', '=', platformId).where('day', '>=', sql<string>`${since}::date`).orderBy('day', 'desc').execute(),
};
