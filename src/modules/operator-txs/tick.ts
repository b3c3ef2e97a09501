import type { SenderContext } from './context.js';
import { monitorInFlight } from './monitor.js';
import { operatorTxsRepo } from './repo.js';
import { sendQueued } from './send-queued.js';

/**
 * One pass of the sender for a chain, only while this instance holds the (chain, operator) lease: take or
 * renew it, follow what is recorded (from any earlier holder too), then send queued intents.
 * Returns whether this instance held the lease.
 */
export async function senderTick(ctx: SenderContext, chainId: number): Promise<boolean> {
  const lease = await operatorTxsRepo.acquireLease(ctx.db, chainId, ctx.account.address, ctx.holder, ctx.options.leaseMs);
  if (!lease) return false;
  await monitorInFlight(ctx, chainId);
  await sendQueued(ctx, chainId);
  return true;
}
