import type { ChainRuntime } from '../chains/service.js';
import { applyItems } from './apply-logs.js';
import type { IndexerCtx } from './context.js';
import { guarded } from './guarded.js';
import { statsRepo } from './lease.js';
import { indexerRepo, type CursorRow } from './repo.js';

export type TickResult = { applied: number; caughtUp: boolean };

/**
 * Reads the range after the cursor (or takes the one read ahead), starts reading the next, and applies this
 * one in a single transaction that also moves the cursor: all of it or none of it. Then pokes the deliverer.
 */
export async function applyRange(ctx: IndexerCtx, rt: ChainRuntime, cur: CursorRow, target: bigint, holder: string | null): Promise<TickResult> {
  const chainId = rt.chainId;
  const s = ctx.rangeOf(chainId);
  const read = await ctx.prefetch.take(rt, s, cur.block + 1n, target);
  if (read.inconsistent) {
    ctx.logger.warn({ chain_id: chainId, block: read.inconsistent.blockNumber.toString() }, 'a log does not match its block (reorg while reading): range not applied, read again next tick');
    return { applied: 0, caughtUp: true };
  }
  const to = read.headers.get(read.to)!;
  ctx.prefetch.ahead(rt, s, read.to, target);
  const applied = await guarded(ctx.db, chainId, cur.block, holder, async (tx) => {
    const n = await applyItems(tx, ctx, chainId, read, rt.usdc);
    if (n > 0) await statsRepo.applied(tx, chainId, n);
    await indexerRepo.setCursor(tx, chainId, { block: read.to, hash: to.hash, time: to.time }, ctx.clock.now());
    ctx.faults?.beforeCommit?.(chainId);
    return n;
  });
  if (applied !== null && applied > 0) ctx.afterCommit?.();
  return { applied: applied ?? 0, caughtUp: read.to >= target };
}
