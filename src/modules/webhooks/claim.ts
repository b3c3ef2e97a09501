import { randomBase62 } from '../../lib/ids.js';
import { eventBody } from '../events/service.js';
import { FAILING_PER_ENDPOINT, type DelivererCtx } from './deliverer-context.js';
import { claimRepo, type ClaimedJob } from './repo.js';

/** A leased delivery ready to send: its body, the same bytes for every attempt of every delivery of its event. */
export type ReadyJob = ClaimedJob & { body: string };

const bodyOf = (job: ClaimedJob): string =>
  JSON.stringify(eventBody({ id: job.event_id, type: job.event_type, created_at: job.event_created_at, data: job.event_data as never }));

/**
 * Leases up to `slots` due deliveries, fairly across endpoints (claimRepo.claim), and returns them ready to
 * send, in one statement; an event's body is built once for all its deliveries in the claim (events/serialize.ts
 * is the one shape). `leaseEndsAt` is this process's view of the lease's end: taken before the claim,
 * so never later than the database's (it bounds how long an outcome is held through a database outage).
 * `perEndpoint`: the leases one endpoint may have at once, all instances together (the running loop claims
 * ahead: more than it sends at once, attempt-pool.ts); a failing endpoint may have FAILING_PER_ENDPOINT.
 */
export async function claimDue(ctx: DelivererCtx, slots: number, perEndpoint = ctx.perEndpoint): Promise<{ jobs: ReadyJob[]; leaseEndsAt: number }> {
  const token = randomBase62(24);
  const leaseEndsAt = Date.now() + ctx.leaseMs;
  const rows = await claimRepo.claim(ctx.db, { slots, perEndpoint, failingPerEndpoint: FAILING_PER_ENDPOINT, maxEndpoints: slots * 4, leaseMs: ctx.leaseMs, token });
  const bodies = new Map<string, string>();
  const jobs = rows.map((job) => {
    let body = bodies.get(job.event_id);
    if (body === undefined) bodies.set(job.event_id, (body = bodyOf(job)));
    return Object.assign(job, { body });
  });
  return { jobs, leaseEndsAt };
}
