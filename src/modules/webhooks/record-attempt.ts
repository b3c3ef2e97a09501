import type { Tx } from '../../db/client.js';
import type { DelivererCtx } from './deliverer-context.js';
import { disableEndpoint } from './disable-endpoint.js';
import { claimRepo, deliveriesRepo, endpointsRepo, type ClaimedJob } from './repo.js';
import { nextRetryDelayMs } from './schedule.js';
import { detailOf, type SendResult } from './send.js';

export type Outcome = 'succeeded' | 'retrying' | 'failed' | 'disabled' | 'lease_lost';

const GONE_REASON = 'endpoint answered 410 Gone';
const RECORD_RETRY_FIRST_MS = 100;
const RECORD_RETRY_MAX_MS = 2_000;

/** One attempt's outcome, in one transaction: the attempt row, the delivery (compare-and-set on its lease), the endpoint. */
export async function recordAttempt(ctx: DelivererCtx, job: ClaimedJob, attemptedAt: Date, r: SendResult): Promise<Outcome> {
  const ok = r.status !== null && r.status >= 200 && r.status < 300;
  const gone = r.status === 410;
  const retryInMs = ok || gone ? null : nextRetryDelayMs(job.attempts + 1 - job.retry_from, {
    scheduleMs: ctx.scheduleMs, random: ctx.random, retryAfterMs: r.retryAfterMs, retryAfterCapMs: ctx.retryAfterCapMs,
  });
  const state = ok ? 'succeeded' : retryInMs !== null ? 'pending' : 'failed';
  return ctx.db.transaction().execute(async (tx) => {
    await claimRepo.recordAttempt(tx, { deliveryId: job.id, attemptedAt, status: r.status, error: r.error, durationMs: r.durationMs, ...detailOf(r) });
    const updated = await claimRepo.finish(tx, { id: job.id, token: job.lease_token, state, status: r.status, error: r.error, retryInMs, attemptedAt });
    if (gone) {
      // 410: the receiver says this endpoint is gone for good; stop sending anything to it.
      const disabled = await disableEndpoint(tx, { endpointId: job.endpoint_id, platformId: job.platform_id, reason: GONE_REASON, at: attemptedAt });
      if (!disabled) await deliveriesRepo.failPendingForEndpoint(tx, job.endpoint_id, 'endpoint disabled: ' + GONE_REASON);
      return 'disabled';
    }
    if (!updated) return 'lease_lost';
    if (ok) {
      await endpointsRepo.markSucceeding(tx, job.endpoint_id);
      return 'succeeded';
    }
    if (await disableIfFailingTooLong(ctx, tx, job, attemptedAt)) return 'disabled';
    return state === 'pending' ? 'retrying' : 'failed';
  });
}

/** A failure extends the endpoint's failure run; a run longer than disableAfterMs disables it. */
async function disableIfFailingTooLong(ctx: DelivererCtx, tx: Tx, job: ClaimedJob, attemptedAt: Date): Promise<boolean> {
  const since = await endpointsRepo.markFailing(tx, job.endpoint_id, attemptedAt);
  if (!since || attemptedAt.getTime() - since.getTime() < ctx.disableAfterMs) return false;
  const days = Math.round(ctx.disableAfterMs / 86_400_000 * 10) / 10;
  const reason = `failing without a success for ${days} days (since ${since.toISOString()})`;
  return disableEndpoint(tx, { endpointId: job.endpoint_id, platformId: job.platform_id, reason, at: attemptedAt });
}

/**
 * The receiver has the event now; forgetting that would send it again once the lease lapses. While the
 * database is away (a restart, a failover) the outcome is held in memory and written as soon as it
 * answers, for as long as this instance still holds the lease. Only a process that dies in between, or
 * a shutdown during the outage, leaves a duplicate to the receiver's dedupe on X-Webhook-Id.
 */
export async function recordDurably(ctx: DelivererCtx, job: ClaimedJob, attemptedAt: Date, r: SendResult, leaseEndsAt: number): Promise<Outcome> {
  for (let waitMs = RECORD_RETRY_FIRST_MS; ; waitMs = Math.min(waitMs * 2, RECORD_RETRY_MAX_MS)) {
    try {
      return await recordAttempt(ctx, job, attemptedAt, r);
    } catch (err) {
      if (ctx.stopping() || Date.now() + waitMs >= leaseEndsAt) throw err;
      ctx.log.warn({ err, delivery_id: job.id, retry_in_ms: waitMs }, 'could not record a webhook attempt; holding its outcome');
      await new Promise((res) => setTimeout(res, waitMs));
    }
  }
}
