import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';

// One advisory-lock namespace for the indexer; the chain id is the second key, so chains index independently.
const INDEXER_LOCK = 727_100;

export const indexerRepo = {
  /** Per-tick leadership: only the transaction holding this lock may apply logs and move the cursor. */
  tryLock: async (tx: Executor, chainId: number) =>
    (await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${INDEXER_LOCK}, ${chainId}) as ok`.execute(tx)).rows[0]?.ok === true,

  cursor: async (db: Executor, chainId: number) =>
    (await db.selectFrom('chain_cursors').select('last_block').where('chain_id', '=', chainId).executeTakeFirst())?.last_block ?? null,

  cursorForUpdate: async (tx: Executor, chainId: number) =>
    (await tx.selectFrom('chain_cursors').select('last_block').where('chain_id', '=', chainId).forUpdate().executeTakeFirst())?.last_block ?? null,

  initCursor: (db: Executor, chainId: number, block: bigint) =>
    db.insertInto('chain_cursors').values({ chain_id: chainId, last_block: block })
      .onConflict((oc) => oc.column('chain_id').doNothing()).execute(),

  setCursor: (tx: Executor, chainId: number, block: bigint) =>
    tx.updateTable('chain_cursors').set({ last_block: block, updated_at: new Date() }).where('chain_id', '=', chainId).execute(),

  /** The (chain, tx, log index) key makes a log apply at most once, even across crashes and instances. */
  recordLog: async (tx: Executor, row: { chain_id: number; tx_hash: string; log_index: number; block_number: bigint; block_hash: string; event_name: string; onchain_id: string | null }) =>
    (await tx.insertInto('chain_logs').values(row)
      .onConflict((oc) => oc.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
      .returning('tx_hash').executeTakeFirst()) !== undefined,

  recentBlocks: (db: Executor, chainId: number, sinceBlock: bigint) =>
    db.selectFrom('chain_logs').select(['block_number', 'block_hash']).distinct()
      .where('chain_id', '=', chainId).where('block_number', '>=', sinceBlock)
      .orderBy('block_number', 'desc').limit(20).execute(),

  alert: (db: Executor, chainId: number, kind: string, detail: Record<string, unknown>) => recordAlert(db, chainId, kind, detail),

  alertExists: async (db: Executor, chainId: number, kind: string, key: string) =>
    (await db.selectFrom('chain_alerts').select('id').where('chain_id', '=', chainId).where('kind', '=', kind)
      .where(sql<boolean>`detail->>'key' = ${key}`).executeTakeFirst()) !== undefined,
};
