import { sql, type ColumnType, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Db, Executor } from '../../db/client.js';
import type { DB } from '../../db/schema.js';
import type { OrderRow } from '../orders/repo.js';

/** Table of migrations/026_x402.sql (only this module writes it). */
export type X402Status = 'pending' | 'settled' | 'failed' | 'front_run' | 'attributed' | 'returned';
export interface X402PaymentsTable {
  id: string;
  order_id: string;
  session_id: string | null;
  platform_id: string;
  chain_id: number;
  token_address: string;
  payer: string;
  nonce: string;
  value: string;
  valid_after: string;
  valid_before: string;
  signature: string;
  pay_order: unknown;
  pay_order_sig: string;
  status: X402Status;
  relay_id: string | null;
  tx_hash: string | null;
  error: string | null;
  /** When a settle answer first reported this payment paid (migrations/033): later answers are refusals. */
  answered_at: ColumnType<Date | null, Date | null | undefined, Date>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}
type Ext = { x402_payments: X402PaymentsTable; relays: { id: string; operator_tx_id: string; state: string }; operator_txs: { id: string; state: string; tx_hash: string | null; error: string | null; calldata: string } };
const x = (db: Executor) => (db as Db).withTables<Ext>() as unknown as Kysely<DB & Ext>;

export type X402PaymentRow = Selectable<X402PaymentsTable>;

/** x402 payment transitions (compare-and-set): the relay's outcome and the indexer's front-running path share it. */
export const X402_TRANSITIONS = {
  settle: { from: ['pending'], to: 'settled' },
  fail: { from: ['pending'], to: 'failed' },
  front_run: { from: ['pending', 'failed'], to: 'front_run' },
  attribute: { from: ['front_run'], to: 'attributed' },
  return: { from: ['front_run'], to: 'returned' },
} as const satisfies Record<string, { from: readonly X402Status[]; to: X402Status }>;

export type SessionWithOrder = {
  session: { id: string; state: string; expires_at: Date; payer_address: string | null; platform_id: string; merchant_name: string; platform_name: string };
  order: OrderRow;
};

const sessionQuery = (db: Executor) =>
  db.selectFrom('checkout_sessions as s')
    .innerJoin('orders as o', 'o.id', 's.order_id')
    .innerJoin('merchants as m', 'm.id', 'o.merchant_id')
    .innerJoin('platforms as p', 'p.id', 's.platform_id')
    .selectAll('o')
    .select(['s.id as session_id', 's.state as session_state', 's.expires_at as session_expires_at', 's.payer_address as session_payer',
      's.platform_id as session_platform', 'm.name as merchant_name', 'p.name as platform_name']);

function split(r: Awaited<ReturnType<ReturnType<typeof sessionQuery>['executeTakeFirst']>>): SessionWithOrder | undefined {
  if (!r) return undefined;
  const { session_id, session_state, session_expires_at, session_payer, session_platform, merchant_name, platform_name, ...order } = r;
  return {
    session: { id: session_id, state: session_state, expires_at: session_expires_at, payer_address: session_payer, platform_id: session_platform, merchant_name, platform_name },
    order: order satisfies OrderRow,
  };
}

export const x402Repo = {
  sessionByTokenHash: async (db: Executor, tokenHash: string) => split(await sessionQuery(db).where('s.token_hash', '=', tokenHash).executeTakeFirst()),
  sessionById: async (db: Executor, id: string) => split(await sessionQuery(db).where('s.id', '=', id).executeTakeFirst()),

  byNonce: (db: Executor, chainId: number, payer: string, nonce: string) =>
    x(db).selectFrom('x402_payments').selectAll().where('chain_id', '=', chainId).where('payer', '=', payer).where(sql`lower(nonce)`, '=', nonce.toLowerCase()).executeTakeFirst(),

  /** An x402 payment in flight for the order, or one that already paid it (refused before anything is sent). */
  blockingForOrder: (db: Executor, orderId: string) =>
    x(db).selectFrom('x402_payments').select(['id', 'status']).where('order_id', '=', orderId).where('status', 'in', ['pending', 'settled', 'front_run', 'attributed']).executeTakeFirst(),

  insert: (tx: Executor, row: Insertable<X402PaymentsTable>) => x(tx).insertInto('x402_payments').values(row).returningAll().executeTakeFirstOrThrow(),

  /** The payment with its relay's transaction: the paid request waits on this until mined. */
  progress: (db: Executor, id: string) =>
    x(db).selectFrom('x402_payments as x').leftJoin('relays as r', 'r.id', 'x.relay_id').leftJoin('operator_txs as t', 't.id', 'r.operator_tx_id')
      .selectAll('x').select(['t.state as tx_state', 't.tx_hash as sent_tx_hash', 't.error as tx_error']).where('x.id', '=', id).executeTakeFirst(),

  /**
   * Is there a verified authorization, still open (pending, or failed without being used by the relay), that a
   * transfer of `value` from `payer` mined at `blockSeconds` could have used? ERC-3009 accepts it only when
   * validAfter < block time < validBefore. (chain_id, payer) is the nonce index's prefix.
   */
  openForTransfer: async (db: Executor, t: { chainId: number; token: string; payer: string; value: bigint; blockSeconds: bigint }) =>
    (await x(db).selectFrom('x402_payments').select('id').where('chain_id', '=', t.chainId).where('payer', '=', t.payer)
      .where('value', '=', t.value.toString()).where(sql`lower(token_address)`, '=', t.token.toLowerCase()).where('status', 'in', ['pending', 'failed'])
      .where('valid_after', '<', t.blockSeconds.toString()).where('valid_before', '>', t.blockSeconds.toString()).limit(1).executeTakeFirst()) !== undefined,

  /** The calldata of an operator intent (the attributeTransfer a return follows). */
  intentCalldata: async (tx: Executor, operatorTxId: string) =>
    (await x(tx).selectFrom('operator_txs').select('calldata').where('id', '=', operatorTxId).executeTakeFirstOrThrow()).calldata as `0x${string}`,
  /**
   * Claims the one "paid" answer of a payment (compare-and-set): true for the first caller only, so a payment
   * presented again (replayed, re-cased, or twice at once) serves its resource once.
   */
  claimAnswer: async (db: Executor, id: string) =>
    (await x(db).updateTable('x402_payments').set({ answered_at: new Date() }).where('id', '=', id).where('answered_at', 'is', null)
      .returning('id').executeTakeFirst()) !== undefined,

  byId: (tx: Executor, id: string) => x(tx).selectFrom('x402_payments').selectAll().where('id', '=', id).executeTakeFirst(),

  byRelay: (tx: Executor, relayId: string) => x(tx).selectFrom('x402_payments').selectAll().where('relay_id', '=', relayId).executeTakeFirst(),

  transition: (tx: Executor, id: string, t: keyof typeof X402_TRANSITIONS, set: Partial<Pick<X402PaymentRow, 'tx_hash' | 'error'>> = {}) =>
    x(tx).updateTable('x402_payments').set({ ...set, status: X402_TRANSITIONS[t].to, updated_at: new Date() })
      .where('id', '=', id).where('status', 'in', [...X402_TRANSITIONS[t].from]).returningAll().executeTakeFirst(),
};
