import { sql, type ColumnType, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Db, Executor } from '../../db/client.js';
import type { DB } from '../../db/schema.js';
import type { IntentRow } from '../operator-txs/enqueue.js';

/** Tables of migrations/015_relays.sql (only this module writes them). */
type Text = ColumnType<string | null, string | null | undefined, string | null>;
export type RelayState = 'pending' | 'succeeded' | 'failed';
export interface RelaysTable {
  id: string;
  order_id: string;
  platform_id: string;
  chain_id: number;
  via: 'checkout' | 'api';
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
  day: ColumnType<string, string, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
interface UsageTable {
  platform_id: string;
  day: string;
  relays: ColumnType<number, number | undefined, number>;
  gas_cost_wei: ColumnType<string, string | undefined, string>;
}
type Ext = { relays: RelaysTable; relay_daily_usage: UsageTable; operator_txs: { id: string; tx_hash: string | null } };
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
   * The order as the relay checks it (any platform's: the public path has only the session token), and whether
   * it has a relay in flight: one round trip. The in-flight flag is advisory (it spares a doomed simulation);
   * relays_in_flight_idx decides at `accept`.
   */
  findOrder: (db: Executor, id: string) =>
    x(db).selectFrom('orders').selectAll('orders')
      .select((eb) => eb.exists(eb.selectFrom('relays').select(sql`1`.as('one')).whereRef('relays.order_id', '=', 'orders.id').where('relays.state', '=', 'pending')).as('relay_in_flight'))
      .where('orders.id', '=', id).executeTakeFirst(),

  /**
   * Accepts a relay in ONE statement: a slot of the platform's day while it stays within `cap`, the relayer's
   * outbox intent (the row operator-txs builds, `intentRow`) and the relay row. Nothing is written when the day
   * is full (undefined), or when the order already has a relay in flight (relays_in_flight_idx fails the
   * statement). As one statement it holds the usage row's lock only while it runs, where a transaction of four
   * statements made every concurrent relay of the platform queue behind the others' round trips.
   */
  async accept(db: Executor, a: { cap: number; intent: IntentRow; relay: Omit<Insertable<RelaysTable>, 'operator_tx_id'> & { day: string } }): Promise<RelayRow | undefined> {
    if (a.cap <= 0) return undefined;
    const i = a.intent;
    const r = a.relay;
    const res = await sql<RelayRow>`
      with slot as (
        insert into relay_daily_usage (platform_id, day, relays) values (${r.platform_id}, ${r.day}::date, 1)
        on conflict (platform_id, day) do update set relays = relay_daily_usage.relays + 1
          where relay_daily_usage.relays < ${a.cap}
        returning 1
      ), intent as (
        insert into operator_txs (id, chain_id, purpose, ref_id, to_address, calldata, state, key_role, gas_limit)
        select ${i.id}, ${i.chain_id}::int, ${i.purpose}, ${i.ref_id}, ${i.to_address}, ${i.calldata}, ${i.state}, ${i.key_role}, ${i.gas_limit?.toString() ?? null}::bigint
        from slot
        returning id
      )
      insert into relays (id, order_id, platform_id, chain_id, via, payer, valid_after, valid_before, nonce, authorization_sig, state, operator_tx_id, day)
      select ${r.id}, ${r.order_id}, ${r.platform_id}, ${r.chain_id}::int, ${r.via}, ${r.payer}, ${r.valid_after}::numeric, ${r.valid_before}::numeric,
        ${r.nonce}, ${r.authorization_sig}, ${r.state}, intent.id, ${r.day}::date
      from intent
      returning *`.execute(db);
    return res.rows[0];
  },

  /** `day` as YYYY-MM-DD text (drivers differ on how they hand a date back). */
  findByOperatorTx: (tx: Executor, operatorTxId: string) =>
    x(tx).selectFrom('relays').select(['id', 'order_id', 'platform_id', 'state', sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day_text')])
      .where('operator_tx_id', '=', operatorTxId).executeTakeFirst(),

  latestForOrder: (db: Executor, orderId: string): Promise<RelayView | undefined> =>
    view(db).where('r.order_id', '=', orderId).orderBy('r.created_at', 'desc').orderBy('r.id').limit(1).executeTakeFirst() as Promise<RelayView | undefined>,

  transition: (tx: Executor, id: string, t: keyof typeof RELAY_TRANSITIONS, set: Partial<Pick<RelayRow, 'error_code' | 'error_message' | 'tx_hash' | 'gas_used' | 'gas_cost_wei'>>) =>
    x(tx).updateTable('relays').set({ ...set, state: RELAY_TRANSITIONS[t].to, updated_at: new Date() })
      .where('id', '=', id).where('state', 'in', [...RELAY_TRANSITIONS[t].from]).returningAll().executeTakeFirst(),

  usedOn: async (db: Executor, platformId: string, day: string) =>
    (await x(db).selectFrom('relay_daily_usage').select('relays').where('platform_id', '=', platformId).where('day', '=', sql<string>`${day}::date`).executeTakeFirst())?.relays ?? 0,

  addGas: (tx: Executor, platformId: string, day: string, wei: bigint) =>
    sql`update relay_daily_usage set gas_cost_wei = gas_cost_wei + ${wei.toString()}::numeric where platform_id = ${platformId} and day = ${day}::date`.execute(tx),

  usageSince: (db: Executor, platformId: string, since: string) =>
    x(db).selectFrom('relay_daily_usage').select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), 'relays', sql<string>`gas_cost_wei::text`.as('gas_cost_wei')])
      .where('platform_id', '=', platformId).where('day', '>=', sql<string>`${since}::date`).orderBy('day', 'desc').execute(),
};
