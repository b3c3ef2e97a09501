import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainRuntime } from '../chains/service.js';
import { header, type Header } from './fetch-range.js';
import { indexerRepo, type CursorRow } from './repo.js';

/**
 * How far back the indexer reads again after a reorg below the confirmation depth. Everything read again
 * is keyed by meaning (chain_logs.event_key, unmatched_transfers.event_key), so nothing applies twice;
 * what the new branch holds and the old did not is picked up.
 */
export const rescanDepth = (confirmations: number) => 4n * BigInt(Math.max(confirmations, 1));

export type CursorCheck = { ok: true } | { ok: false; current: Header; rescanTo: bigint };

/**
 * A block hash commits to all its ancestors: if the cursor block still has the hash stored with it, no
 * block up to the cursor changed. A cursor stored without a hash (before migration 009) gets it now.
 */
export async function checkCursor(db: Db, rt: ChainRuntime, cur: CursorRow, floor: bigint): Promise<CursorCheck> {
  if (cur.block < 0n) return { ok: true };
  const current = await header(rt, cur.block);
  if (cur.hash === null) {
    await indexerRepo.fillCursorHash(db, rt.chainId, cur.block, current.hash, current.time);
    return { ok: true };
  }
  if (current.hash === cur.hash) return { ok: true };
  const back = cur.block - rescanDepth(rt.confirmations);
  return { ok: false, current, rescanTo: back < floor ? floor : back };
}

/** Recorded once per (block, hash we had applied): an alert row and an error line. */
export async function reportReorg(db: Db, logger: Logger, rt: ChainRuntime, cur: CursorRow, check: Extract<CursorCheck, { ok: false }>) {
  const key = `${cur.block}:${cur.hash}`;
  logger.error({ chain_id: rt.chainId, block: cur.block.toString(), applied_hash: cur.hash, current_hash: check.current.hash, rescan_from: (check.rescanTo + 1n).toString() },
    'ALERT: the cursor block was reorganised below the confirmation depth; reading again from further back');
  if (await indexerRepo.alertExists(db, rt.chainId, 'reorg_below_depth', key)) return;
  await indexerRepo.alert(db, rt.chainId, 'reorg_below_depth', {
    key, block_number: cur.block, applied_hash: cur.hash, current_hash: check.current.hash, rescan_from: check.rescanTo + 1n,
  });
}
