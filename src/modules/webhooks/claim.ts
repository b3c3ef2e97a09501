import { randomBase62 } from '../../lib/ids.js';
import type { DelivererCtx } from './deliverer-context.js';
import { claimRepo, type ClaimedJob } from './repo.js';

/**
 * Leases up to `slots` due deliveries, fairly across endpoints (claimRepo.claim), and returns them ready to
 * send, in one statement. `leaseEndsAt` is this process's view of the lease's end: taken before the claim,
 * so never later than the database's (it bounds how long an outcome is held through a database outage).
 * `perEndpoint`: the leases one endpoint may have at once, all instances together (the running loop claims
 * ahead: more than it sends at once, attempt-pool.ts).
 */
export async function claimDue(ctx: DelivererCtx, slots: number, perEndpoint = ctx.perEndpoint): Promise<{ jobs: ClaimedJob[]; leaseEndsAt: number }> {
  const token = randomBase62(24);
  const leaseEndsAt = Date.now() + ctx.leaseMs;
  const jobs = await claimRepo.claim(ctx.db, { slots, perEndpoint, maxEndpoints: slots * 4, leaseMs: ctx.leaseMs, token });
  return { jobs, leaseEndsAt };
}
