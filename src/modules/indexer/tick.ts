import type { ChainRuntime } from '../chains/service.js';
import { applyRange, type TickResult } from './apply-range.js';
import type { IndexerCtx } from './context.js';
import { cursorOf, rescan } from './cursor.js';
import { confirmedTarget, finalityOf } from './finality.js';
import { statsRepo } from './lease.js';
import { readDueReceipts } from './read-due-receipts.js';
import { checkCursor, reportReorg } from './reorg.js';

/**
 * One step: read and apply at most one range, then read at most RECEIPTS_PER_PASS receipts of transfers that may be
 * front-run x402 authorizations (the rest next tick). `holder`: the lease this step runs under (null: runOnce).
 */
export async function tick(ctx: IndexerCtx, chainId: number, holder: string | null = null): Promise<TickResult> {
  const rt = ctx.chains.get(chainId);
  const finality = finalityOf(rt, ctx.devnet);
  const t = await confirmedTarget(rt, finality);
  const r = await step(ctx, rt, t.target, holder);
  await readDueReceipts(ctx, rt);
  await statsRepo.ran(ctx.db, chainId, { head: t.head, target: t.target, finality, source: t.source }, ctx.clock.now());
  return r;
}

/** Checks the cursor against the canonical chain (a reorg below the depth moves it back), else applies the next range. */
async function step(ctx: IndexerCtx, rt: ChainRuntime, target: bigint, holder: string | null): Promise<TickResult> {
  const cur = await cursorOf(ctx, rt, target);
  const check = await checkCursor(ctx.db, rt, cur, ctx.floorOf(rt), target);
  if (!check.ok) {
    await reportReorg(ctx.db, ctx.logger, rt, cur, check);
    await rescan(ctx, rt, cur, check.rescanTo, holder);
    return { applied: 0, caughtUp: false };
  }
  if (target <= cur.block) return { applied: 0, caughtUp: true };
  return applyRange(ctx, rt, cur, target, holder);
}

/** Until caught up (tests and operators): the number of events applied. Ignores the enabled flag. */
export async function runOnce(ctx: IndexerCtx, chainId: number, maxSteps = 1000): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxSteps; i++) {
    const r = await tick(ctx, chainId);
    total += r.applied;
    if (r.caughtUp) break;
  }
  return total;
}
