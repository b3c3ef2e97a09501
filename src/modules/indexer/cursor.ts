import type { ChainRuntime } from '../chains/service.js';
import type { IndexerCtx } from './context.js';
import { header } from './fetch-range.js';
import { guarded } from './guarded.js';
import { indexerRepo, type CursorRow } from './repo.js';

/** The chain's cursor, created on first use. */
export async function cursorOf(ctx: IndexerCtx, rt: ChainRuntime, target: bigint): Promise<CursorRow> {
  const cur = await indexerRepo.cursor(ctx.db, rt.chainId);
  if (cur) return cur;
  // From the router's deployment block when known; else devnet from genesis, a real network from where
  // the service first ran (orders only exist from then).
  await indexerRepo.initCursor(ctx.db, rt.chainId, rt.startBlock !== undefined ? rt.startBlock - 1n : ctx.devnet ? -1n : target);
  return (await indexerRepo.cursor(ctx.db, rt.chainId))!;
}

/** After a reorg below the depth: the cursor goes back to `to` (keys make the re-read harmless). */
export async function rescan(ctx: IndexerCtx, rt: ChainRuntime, cur: CursorRow, to: bigint, holder: string | null) {
  const h = to >= 0n ? await header(rt, to) : null;
  await guarded(ctx.db, rt.chainId, cur.block, holder, async (tx) => {
    await indexerRepo.forgetMarksAbove(tx, rt.chainId, to);
    await indexerRepo.setCursor(tx, rt.chainId, { block: to, hash: h?.hash ?? null, time: h?.time ?? null }, ctx.clock.now());
  });
}
