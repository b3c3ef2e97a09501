import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';
import { randomBase62 } from '../../lib/ids.js';
import { recordAlert } from '../alerts/service.js';

// One advisory-lock namespace for the indexer; the chain id is the second key, so chains index independently.
const INDEXER_LOCK = 727_100;
/** How many cursor positions per chain are remembered for finding a fork point (migration 020). */
export const CURSOR_MARKS = 256;

export type CursorRow = { block: bigint; hash: string | null; time: Date | null };

export type UnmatchedTransferRow = {
  chain_id: number; token: string; from_address: string; value: bigint; tx_hash: string; block_number: bigint;
  block_time: Date; log_index: number; event_key: string; receipt_due?: boolean;
};

/** An unmatched transfer whose receipt is due (read-due-receipts.ts). */
export type DueTransfer = { id: string; token: string; from_address: string; value: bigint; tx_hash: string; block_number: bigint; block_time: Date; log_index: number };

const toCursor = (r: { last_block: bigint; last_block_hash: string | null; last_block_time: Date | null } | undefined): CursorRow | null =>
  r ? { block: BigInt(r.last_block), hash: r.last_block_hash, time: r.last_block_time } : null;

export const indexerRepo = {
  /** Per-tick safety net: only the transaction holding this lock may apply logs and move the cursor. */
  tryLock: async (tx: Executor, chainId: number) =>
    (await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${INDEXER_LOCK}, ${chainId}) as ok`.execute(tx)).rows[0]?.ok === true,

  cursor: async (db: Executor, chainId: number) =>
    toCursor(await db.selectFrom('chain_cursors').select(['last_block', 'last_block_hash', 'last_block_time']).where('chain_id', '=', chainId).executeTakeFirst()),

  cursorForUpdate: async (tx: Executor, chainId: number) =>
    toCursor(await tx.selectFrom('chain_cursors').select(['last_block', 'last_block_hash', 'last_block_time']).where('chain_id', '=', chainId).forUpdate().executeTakeFirst()),

  initCursor: (db: Executor, chainId: number, block: bigint) =>
    db.insertInto('chain_cursors').values({ chain_id: chainId, last_block: block })
      .onConflict((oc) => oc.column('chain_id').doNothing()).execute(),

  /** The cursor block with its hash and time (null for a block before genesis); `at`: the service clock. */
  setCursor: async (tx: Executor, chainId: number, c: { block: bigint; hash: string | null; time: Date | null }, at: Date) => {
    await tx.updateTable('chain_cursors').set({ last_block: c.block, last_block_hash: c.hash, last_block_time: c.time, updated_at: at })
      .where('chain_id', '=', chainId).execute();
    if (c.hash !== null) await indexerRepo.mark(tx, chainId, c.block, c.hash);
  },

  /** Remembers the hash the cursor stood on, keeping the newest CURSOR_MARKS positions of the chain. */
  mark: async (tx: Executor, chainId: number, block: bigint, hash: string) => {
    await tx.insertInto('chain_cursor_marks').values({ chain_id: chainId, block, hash })
      .onConflict((oc) => oc.columns(['chain_id', 'block']).doUpdateSet({ hash })).execute();
    await sql`delete from chain_cursor_marks where chain_id = ${chainId} and block < (
      select block from chain_cursor_marks where chain_id = ${chainId} order by block desc offset ${CURSOR_MARKS - 1} limit 1)`.execute(tx);
  },

  /** The remembered positions below `block`, newest first. */
  marksBelow: async (db: Executor, chainId: number, block: bigint) =>
    (await db.selectFrom('chain_cursor_marks').select(['block', 'hash']).where('chain_id', '=', chainId).where('block', '<', block)
      .orderBy('block', 'desc').execute()).map((r) => ({ block: BigInt(r.block), hash: r.hash })),

  /** A ServiceTreasuryUpdated, once (a log read again after a reorg changes nothing). */
  recordTreasury: (tx: Executor, row: { chain_id: number; router: string; block_number: bigint; log_index: number; tx_hash: string; previous: string; treasury: string; block_time: Date }) =>
    tx.insertInto('router_treasury_updates').values(row).onConflict((oc) => oc.doNothing()).execute(),

  /** Forgets the positions above `block` (they were on a branch the chain left). */
  forgetMarksAbove: (tx: Executor, chainId: number, block: bigint) =>
    tx.deleteFrom('chain_cursor_marks').where('chain_id', '=', chainId).where('block', '>', block).execute(),

  /** Fills the hash of a cursor stored before hashes were (only where it is still that block, without one). */
  fillCursorHash: (db: Executor, chainId: number, block: bigint, hash: string, time: Date) =>
    db.updateTable('chain_cursors').set({ last_block_hash: hash, last_block_time: time })
      .where('chain_id', '=', chainId).where('last_block', '=', block).where('last_block_hash', 'is', null).execute(),

  /** (chain, event_key) makes an event apply at most once, wherever it was (re-)included, across crashes and instances. */
  recordLog: async (tx: Executor, row: { chain_id: number; tx_hash: string; log_index: number; block_number: bigint; block_hash: string; event_name: string; onchain_id: string | null; event_key: string }) =>
    (await tx.insertInto('chain_logs').values(row)
      .onConflict((oc) => oc.doNothing())
      .returning('tx_hash').executeTakeFirst()) !== undefined,

  /**
   * Many logs in one statement (array parameters: one statement text whatever the count); returns the event
   * keys that were new. A key already applied (in an earlier range, a re-included log) is left as it was.
   */
  recordLogs: async (tx: Executor, chainId: number, rows: { txHash: string[]; logIndex: number[]; block: bigint[]; blockHash: string[]; eventName: string[]; onchainId: (string | null)[]; eventKey: string[] }) =>
    new Set((await sql<{ event_key: string }>`
      insert into chain_logs (chain_id, tx_hash, log_index, block_number, block_hash, event_name, onchain_id, event_key)
      select ${chainId}::integer, u.tx_hash, u.log_index::integer, u.block::int8, u.block_hash, u.event_name, u.onchain_id, u.event_key
      from unnest(${rows.txHash}::text[], ${rows.logIndex.map(String)}::text[], ${rows.block.map(String)}::text[], ${rows.blockHash}::text[],
                  ${rows.eventName}::text[], ${rows.onchainId}::text[], ${rows.eventKey}::text[])
        as u(tx_hash, log_index, block, block_hash, event_name, onchain_id, event_key)
      on conflict do nothing
      returning event_key`.execute(tx)).rows.map((r) => r.event_key)),

  /** True when this transfer was not recorded before (and so is news). */
  recordUnmatchedTransfer: async (tx: Executor, row: UnmatchedTransferRow) =>
    (await tx.insertInto('unmatched_transfers').values({ id: `utx_${randomBase62(20)}`, ...row })
      .onConflict((oc) => oc.columns(['chain_id', 'event_key']).doNothing())
      .returning('id').executeTakeFirst()) !== undefined,

  /** The oldest `limit` unmatched transfers of the chain whose receipt is due. */
  receiptsDue: async (db: Executor, chainId: number, limit: number): Promise<DueTransfer[]> =>
    (await db.selectFrom('unmatched_transfers').select(['id', 'token', 'from_address', 'value', 'tx_hash', 'block_number', 'block_time', 'log_index'])
      .where('chain_id', '=', chainId).where('receipt_due', '=', true).orderBy('block_number').orderBy('log_index').limit(limit).execute())
      .map((r) => ({ ...r, value: BigInt(r.value), block_number: BigInt(r.block_number) })),

  /** Takes a due transfer once (another pass, or an adoption that claimed it, may have taken it first). */
  takeDue: async (tx: Executor, id: string) =>
    (await tx.updateTable('unmatched_transfers').set({ receipt_due: false }).where('id', '=', id).where('receipt_due', '=', true)
      .where('x402_payment_id', 'is', null).returning('id').executeTakeFirst()) !== undefined,

  /** ExcessRecovered moved balance − reserved out: every unmatched transfer of that token before it was part of it. */
  markRecovered: (tx: Executor, chainId: number, token: string, at: { block: bigint; logIndex: number; txHash: string; time: Date }) =>
    tx.updateTable('unmatched_transfers').set({ recovered_tx_hash: at.txHash, recovered_at: at.time })
      .where('chain_id', '=', chainId).where(sql<boolean>`lower(token) = ${token.toLowerCase()}`).where('recovered_tx_hash', 'is', null)
      .where((eb) => eb.or([eb('block_number', '<', at.block), eb.and([eb('block_number', '=', at.block), eb('log_index', '<', at.logIndex)])]))
      .execute(),

  alert: (db: Executor, chainId: number, kind: string, detail: Record<string, unknown>) => recordAlert(db, chainId, kind, detail),

  indexedUntil: (db: Executor, chainId: number) => indexedUntil(db, chainId),

  alertExists: async (db: Executor, chainId: number, kind: string, key: string) =>
    (await db.selectFrom('chain_alerts').select('id').where('chain_id', '=', chainId).where('kind', '=', kind)
      .where(sql<boolean>`detail->>'key' = ${key}`).executeTakeFirst()) !== undefined,
};

/**
 * The chain time up to which every log has been applied at confirmation depth: the cursor block and its
 * timestamp (null before the indexer has stored one). The order-expiry sweeper and refund deadlines use it.
 */
export async function indexedUntil(db: Executor, chainId: number): Promise<{ block: bigint; time: Date } | null> {
  const c = await indexerRepo.cursor(db, chainId);
  return c && c.time ? { block: c.block, time: c.time } : null;
}
