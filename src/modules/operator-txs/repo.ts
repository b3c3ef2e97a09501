import { sql, type ColumnType, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Db, Executor } from '../../db/client.js';
import type { DB } from '../../db/schema.js';
import type { KeyRole } from './types.js';

/** Tables of migrations/010_operator_txs.sql (only this module uses them). */
type Ts = ColumnType<Date | null, Date | null | undefined, Date | null>;
type Int8 = ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
/** numeric(78,0): wei amounts, read as text and converted where used. */
type Wei = ColumnType<string | null, string | null | undefined, string | null>;
export type OperatorTxState = 'queued' | 'signed' | 'sent' | 'mined' | 'done' | 'rejected';
export type OperatorTxOutcomeKind = 'success' | 'reverted' | 'rejected';

export interface OperatorTxsTable {
  id: string;
  seq: ColumnType<bigint, never, never>;
  chain_id: number;
  purpose: string;
  key_role: ColumnType<KeyRole, KeyRole | undefined, never>;
  ref_id: string;
  to_address: string;
  calldata: string;
  state: OperatorTxState;
  sender: ColumnType<string | null, string | null | undefined, string | null>;
  nonce: Int8;
  tx_hash: ColumnType<string | null, string | null | undefined, string | null>;
  raw_tx: ColumnType<string | null, string | null | undefined, string | null>;
  gas_limit: Int8;
  max_fee_per_gas: Wei;
  max_priority_fee_per_gas: Wei;
  /** The most this intent may bid per gas (its owner's reservation, migration 022); null: the sender's cap only. */
  max_fee_cap: Wei;
  signed_at: Ts;
  sent_at: Ts;
  broadcasts: ColumnType<number, number | undefined, number>;
  outcome: ColumnType<OperatorTxOutcomeKind | null, OperatorTxOutcomeKind | null | undefined, OperatorTxOutcomeKind | null>;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  block_number: Int8;
  block_hash: ColumnType<string | null, string | null | undefined, string | null>;
  gas_used: Int8;
  effective_gas_price: Wei;
  mined_at: Ts;
  delivered_at: Ts;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
interface AttemptsTable {
  tx_hash: string;
  operator_tx_id: string;
  nonce: ColumnType<bigint, bigint, never>;
  raw_tx: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}
interface LeasesTable {
  chain_id: number;
  sender: string;
  holder: string;
  expires_at: Date;
  next_nonce: ColumnType<bigint, bigint | undefined, bigint>;
  renewed_at: ColumnType<Date, Date | undefined, Date>;
}
type Ext = { operator_txs: OperatorTxsTable; operator_tx_attempts: AttemptsTable; operator_leases: LeasesTable };
const x = (db: Executor) => (db as Db).withTables<Ext>() as unknown as Kysely<DB & Ext>;

export type OperatorTxRow = Selectable<OperatorTxsTable>;
export type LeaseRow = Selectable<LeasesTable>;
export type SignedRecord = { nonce: bigint; hash: string; raw: string; gasLimit: bigint; maxFee: bigint; maxPriority: bigint };
export type MinedRecord = { outcome: 'success' | 'reverted'; hash: string; blockNumber: bigint; blockHash: string; gasUsed: bigint; effectiveGasPrice: bigint; error: string | null };

/** The sender lost its lease between reading and recording: it must not broadcast what it did not record. */
export class LeaseLost extends Error {
  constructor() {
    super('operator sender lease lost');
    this.name = 'LeaseLost';
  }
}

const IN_FLIGHT: OperatorTxState[] = ['signed', 'sent', 'mined'];

export const operatorTxsRepo = {
  insert: (tx: Executor, row: Insertable<OperatorTxsTable>) => x(tx).insertInto('operator_txs').values(row).returningAll().executeTakeFirstOrThrow(),

  findById: (db: Executor, id: string) => x(db).selectFrom('operator_txs').selectAll().where('id', '=', id).executeTakeFirst(),

  lockById: (tx: Executor, id: string) => x(tx).selectFrom('operator_txs').selectAll().where('id', '=', id).forUpdate().executeTakeFirst(),

  forRef: (db: Executor, purpose: string, refId: string) =>
    x(db).selectFrom('operator_txs').selectAll().where('purpose', '=', purpose).where('ref_id', '=', refId).orderBy('seq').execute(),

  listByChain: (db: Executor, chainId: number) => x(db).selectFrom('operator_txs').selectAll().where('chain_id', '=', chainId).orderBy('seq').execute(),

  /**
   * Takes the lease for (chain, sender), or renews it: succeeds when nobody holds it, this holder does, or
   * the holder let it lapse (database clock). Returns the lease row, or undefined when someone else holds it.
   */
  acquireLease: async (db: Executor, chainId: number, sender: string, holder: string, ttlMs: number) => {
    const r = await sql<LeaseRow>`
      insert into operator_leases (chain_id, sender, holder, expires_at, renewed_at)
      values (${chainId}, ${sender}, ${holder}, now() + ${`${ttlMs} milliseconds`}::interval, now())
      on conflict (chain_id, sender) do update
        set holder = excluded.holder, expires_at = excluded.expires_at, renewed_at = now()
        where operator_leases.holder = excluded.holder or operator_leases.expires_at < now()
      returning *`.execute(db);
    return r.rows[0];
  },

  releaseLease: (db: Executor, chainId: number, sender: string, holder: string) =>
    x(db).updateTable('operator_leases').set({ expires_at: new Date(0) })
      .where('chain_id', '=', chainId).where('sender', '=', sender).where('holder', '=', holder).execute(),

  lease: (db: Executor, chainId: number, sender: string) =>
    x(db).selectFrom('operator_leases').selectAll().where('chain_id', '=', chainId).where('sender', '=', sender).executeTakeFirst(),

  /** Signed, sent or mined, lowest nonce first. */
  inFlight: (db: Executor, chainId: number, sender: string) =>
    x(db).selectFrom('operator_txs').selectAll().where('chain_id', '=', chainId).where('sender', '=', sender)
      .where('state', 'in', IN_FLIGHT).orderBy('nonce').execute(),

  /** Queued intents in order. */
  queued: (db: Executor, chainId: number, keyRole: KeyRole, limit: number) =>
    x(db).selectFrom('operator_txs').selectAll()
      .where('chain_id', '=', chainId).where('key_role', '=', keyRole).where('state', '=', 'queued')
      .orderBy('seq').limit(limit).execute(),

  attempts: (db: Executor, id: string) =>
    x(db).selectFrom('operator_tx_attempts').selectAll().where('operator_tx_id', '=', id).orderBy('created_at').execute(),

  /**
   * Records a signed transaction (first or replacement) under the lease: nonce, raw transaction and hash,
   * the attempt row, and the lease's next nonce. Throws LeaseLost (rolling back) when the lease is not ours.
   */
  recordSigned: async (tx: Executor, id: string, sender: string, holder: string, chainId: number, s: SignedRecord) => {
    const lease = await x(tx).updateTable('operator_leases')
      .set({ next_nonce: sql`greatest(next_nonce, ${s.nonce + 1n})` })
      .where('chain_id', '=', chainId).where('sender', '=', sender).where('holder', '=', holder).where('expires_at', '>', sql<Date>`now()`)
      .returning('holder').executeTakeFirst();
    if (!lease) throw new LeaseLost();
    await x(tx).insertInto('operator_tx_attempts').values({
      tx_hash: s.hash, operator_tx_id: id, nonce: s.nonce, raw_tx: s.raw, max_fee_per_gas: s.maxFee.toString(), max_priority_fee_per_gas: s.maxPriority.toString(),
    }).execute();
    return x(tx).updateTable('operator_txs').set({
      sender, nonce: s.nonce, tx_hash: s.hash, raw_tx: s.raw, gas_limit: s.gasLimit, max_fee_per_gas: s.maxFee.toString(),
      max_priority_fee_per_gas: s.maxPriority.toString(), signed_at: new Date(), updated_at: new Date(),
      state: sql<OperatorTxState>`case when state = 'queued' then 'signed' else state end`,
    }).where('id', '=', id).where('state', 'in', ['queued', 'signed', 'sent']).returningAll().executeTakeFirstOrThrow();
  },

  /**
   * recordSigned for a batch of first attempts in three statements (the lease, the attempts, the rows) instead
   * of three per transaction: a burst of relays is recorded without a database round trip per transaction.
   */
  recordSignedMany: async (tx: Executor, sender: string, holder: string, chainId: number, items: { id: string; s: SignedRecord }[]) => {
    const top = items.reduce((m, i) => (i.s.nonce > m ? i.s.nonce : m), -1n);
    const lease = await x(tx).updateTable('operator_leases')
      .set({ next_nonce: sql`greatest(next_nonce, ${top + 1n})` })
      .where('chain_id', '=', chainId).where('sender', '=', sender).where('holder', '=', holder).where('expires_at', '>', sql<Date>`now()`)
      .returning('holder').executeTakeFirst();
    if (!lease) throw new LeaseLost();
    await x(tx).insertInto('operator_tx_attempts').values(items.map(({ id, s }) => ({
      tx_hash: s.hash, operator_tx_id: id, nonce: s.nonce, raw_tx: s.raw, max_fee_per_gas: s.maxFee.toString(), max_priority_fee_per_gas: s.maxPriority.toString(),
    }))).execute();
    const now = new Date();
    const values = sql.join(items.map(({ id, s }) => sql`(${id}, ${s.nonce.toString()}, ${s.hash}, ${s.raw}, ${s.gasLimit.toString()}, ${s.maxFee.toString()}, ${s.maxPriority.toString()})`));
    const r = await sql<OperatorTxRow>`
      update operator_txs as t set sender = ${sender}, nonce = v.nonce::bigint, tx_hash = v.hash, raw_tx = v.raw, gas_limit = v.gas::bigint,
        max_fee_per_gas = v.max_fee::numeric, max_priority_fee_per_gas = v.max_prio::numeric, signed_at = ${now}, updated_at = ${now},
        state = case when t.state = 'queued' then 'signed' else t.state end
      from (values ${values}) as v(id, nonce, hash, raw, gas, max_fee, max_prio)
      where t.id = v.id and t.state in ('queued', 'signed', 'sent')
      returning t.*`.execute(tx);
    if (r.rows.length !== items.length) throw new Error(`recorded ${r.rows.length} of ${items.length} operator transactions`);
    const byId = new Map(r.rows.map((row) => [row.id, row]));
    return items.map((i) => byId.get(i.id)!);
  },

  markSent: (db: Executor, ids: string[]) =>
    ids.length === 0 ? Promise.resolve([]) : x(db).updateTable('operator_txs').set({ state: 'sent', sent_at: new Date(), broadcasts: sql`broadcasts + 1`, updated_at: new Date() })
      .where('id', 'in', ids).where('state', 'in', ['signed', 'sent']).execute(),

  markMined: (db: Executor, id: string, m: MinedRecord) =>
    x(db).updateTable('operator_txs').set({
      state: 'mined', outcome: m.outcome, tx_hash: m.hash, block_number: m.blockNumber, block_hash: m.blockHash, gas_used: m.gasUsed,
      effective_gas_price: m.effectiveGasPrice.toString(), error: m.error, mined_at: new Date(), updated_at: new Date(),
    }).where('id', '=', id).where('state', 'in', ['signed', 'sent']).execute(),

  /** A mined transaction whose block was reorganised away: back to sent, it is watched again. */
  unmine: (db: Executor, id: string) =>
    x(db).updateTable('operator_txs').set({ state: 'sent', outcome: null, block_number: null, block_hash: null, gas_used: null, effective_gas_price: null, error: null, mined_at: null, updated_at: new Date() })
      .where('id', '=', id).where('state', '=', 'mined').execute(),

  /**
   * Its nonce was consumed by a transaction that is none of ours: the intent was not executed; queue it again
   * (simulated again; its gas limit stays the most it may be signed with).
   */
  requeue: (db: Executor, id: string, error: string) =>
    x(db).updateTable('operator_txs').set({ state: 'queued', nonce: null, tx_hash: null, raw_tx: null, sent_at: null, signed_at: null, error, updated_at: new Date() })
      .where('id', '=', id).where('state', 'in', ['signed', 'sent']).execute(),

  finish: (tx: Executor, id: string, from: OperatorTxState, set: { state: 'done' | 'rejected'; outcome?: OperatorTxOutcomeKind; error?: string | null }) =>
    x(tx).updateTable('operator_txs').set({ ...set, delivered_at: new Date(), updated_at: new Date() })
      .where('id', '=', id).where('state', '=', from).returningAll().executeTakeFirst(),

  /** Sent or queued intents of one owner row that have not reached an outcome yet. */
  openFor: (db: Executor, purpose: string, refId: string) =>
    x(db).selectFrom('operator_txs').select('id').where('purpose', '=', purpose).where('ref_id', '=', refId)
      .where('state', 'in', ['queued', ...IN_FLIGHT]).execute(),
};
