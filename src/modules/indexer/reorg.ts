import { BaseError, BlockNotFoundError, type Hex } from 'viem';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainRuntime } from '../chains/service.js';
import { header, type Header } from './fetch-range.js';
import { indexerRepo, type CursorRow } from './repo.js';

/**
 * The least the indexer reads again after a reorg below the confirmation depth (it goes back to the fork
 * point when that is deeper, `forkPoint`). Everything read again
 * is keyed by meaning (chain_logs.event_key, unmatched_transfers.event_key), so nothing applies twice;
 * what the new branch holds and the old did not is picked up.
 */
export const rescanDepth = (confirmations: number) => 4n * BigInt(Math.max(confirmations, 1));

/** current: the block's header now, or null when the node has no such block any more (a chain reset under us). */
export type CursorCheck = { ok: true } | { ok: false; current: Header | null; rescanTo: bigint };

async function headerOrNull(rt: ChainRuntime, n: bigint): Promise<Header | null> {
  try {
    return await header(rt, n);
  } catch (err) {
    if (err instanceof BaseError && err.walk((e) => e instanceof BlockNotFoundError)) return null;
    throw err;
  }
}

/**
 * A block hash commits to all its ancestors: if the cursor block still has the hash stored with it, no
 * block up to the cursor changed. A cursor stored without a hash (before migration 009) gets it now.
 */
export async function checkCursor(db: Db, rt: ChainRuntime, cur: CursorRow, floor: bigint, target: bigint): Promise<CursorCheck> {
  if (cur.block < 0n) return { ok: true };
  const current = await headerOrNull(rt, cur.block);
  // A node without the cursor block while the chain is at least that long is lagging (a load-balanced
  // backend behind the others): retried next tick. A chain now shorter than the cursor was reset or reorganised.
  if (!current && target >= cur.block) throw new Error(`block ${cur.block} (the cursor) not found on the RPC`);
  if (current && cur.hash === null) {
    await indexerRepo.fillCursorHash(db, rt.chainId, cur.block, current.hash, current.time);
    return { ok: true };
  }
  if (current?.hash === cur.hash) return { ok: true };
  // Read again from the fork point (the newest remembered position the node still has), and never less deep
  // than rescanDepth. When no remembered position survived, from the floor: slow, but nothing is missed.
  const fork = await forkPoint(db, rt, cur.block);
  const fixed = cur.block - rescanDepth(rt.confirmations);
  const back = fork === null ? floor : fork < fixed ? fork : fixed;
  return { ok: false, current, rescanTo: back < floor ? floor : back };
}

/**
 * The newest cursor position below `block` whose hash the node still reports, or null. A block hash commits
 * to its ancestors, so the positions that still match are exactly the older ones: a binary search over them
 * reads O(log n) headers.
 */
export async function forkPoint(db: Db, rt: ChainRuntime, block: bigint): Promise<bigint | null> {
  const marks = await indexerRepo.marksBelow(db, rt.chainId, block); // newest first
  const still = async (i: number) => (await headerOrNull(rt, marks[i]!.block))?.hash === marks[i]!.hash;
  let lo = 0;
  let hi = marks.length; // the first matching index is in [lo, hi]; hi = length: none matches
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (await still(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo < marks.length ? marks[lo]!.block : null;
}

/** Recorded once per (block, hash we had applied): an alert row and an error line. */
export async function reportReorg(db: Db, logger: Logger, rt: ChainRuntime, cur: CursorRow, check: Extract<CursorCheck, { ok: false }>) {
  const key = `${cur.block}:${cur.hash}`;
  logger.error({ chain_id: rt.chainId, block: cur.block.toString(), applied_hash: cur.hash, current_hash: check.current?.hash ?? null, rescan_from: (check.rescanTo + 1n).toString() },
    'ALERT: the cursor block was reorganised below the confirmation depth; reading again from further back');
  if (await indexerRepo.alertExists(db, rt.chainId, 'reorg_below_depth', key)) return;
  await indexerRepo.alert(db, rt.chainId, 'reorg_below_depth', {
    key, block_number: cur.block, applied_hash: cur.hash, current_hash: (check.current?.hash ?? null) as Hex | null, rescan_from: check.rescanTo + 1n,
  });
}
