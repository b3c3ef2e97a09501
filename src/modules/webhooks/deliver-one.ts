import type { DelivererCtx } from './deliverer-context.js';
import { recordDurably } from './record-attempt.js';
import type { ReadyJob } from './claim.js';
import type { ClaimedJob } from './repo.js';
import { postWebhook } from './send.js';
import { signatureHeader, standardSignatureHeader } from './sign.js';

export const USER_AGENT = 'Trisettle-Webhooks/1';

/** The current secret, and the previous one while it is still valid after a roll (both sign). */
function secretsOf(ctx: DelivererCtx, job: ClaimedJob, now: Date): string[] {
  const previousLive = job.previous_secret && job.previous_secret_expires_at && job.previous_secret_expires_at > now;
  const open = ctx.secrets.open;
  return previousLive ? [open(job.secret), open(job.previous_secret!)] : [open(job.secret)];
}

function headersOf(job: ClaimedJob, secrets: string[], timestamp: number, body: string): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Webhook-Id': job.event_id,
    'X-Webhook-Timestamp': String(timestamp),
    'X-Webhook-Signature': signatureHeader(secrets, timestamp, body),
    // Standard Webhooks: the same delivery, verifiable by the standardwebhooks / Svix libraries as they are.
    'webhook-id': job.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignatureHeader(secrets, job.event_id, timestamp, body),
  };
}

/**
 * One attempt of a leased delivery: signed POST, then its outcome recorded (2xx by group commit). `answered` runs
 * once the POST has its outcome (true for a 2xx), before it is recorded: the sending slot is free then, the lease is
 * not (it ends with the committed outcome).
 */
export async function deliverOne(ctx: DelivererCtx, job: ReadyJob, leaseEndsAt: number, answered: (ok: boolean) => void = () => {}): Promise<void> {
  const attemptedAt = ctx.clock.now();
  let result;
  let ok = false;
  try {
    const body = job.body;
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    result = await postWebhook({
      url: job.url, body, timeoutMs: ctx.timeoutMs, policy: ctx.policy, pool: (origin) => ctx.agents.of(job.endpoint_id, origin),
      headers: headersOf(job, secretsOf(ctx, job, attemptedAt), timestamp, body),
    });
    ok = result.status !== null && result.status >= 200 && result.status < 300;
  } finally {
    answered(ok);
  }
  const outcome = ok ? await ctx.successes.record(job, attemptedAt, result, leaseEndsAt) : await recordDurably(ctx, job, attemptedAt, result, leaseEndsAt);
  ctx.metrics?.webhookDeliveries.inc({ outcome });
  // Ids, status and timing only: never the URL (it may carry a token), the body or a secret.
  ctx.log[outcome === 'succeeded' ? 'info' : 'warn']({
    delivery_id: job.id, event_id: job.event_id, endpoint_id: job.endpoint_id, attempt: job.attempts + 1,
    status: result.status, duration_ms: result.durationMs, outcome, error: result.error ?? undefined,
  }, 'webhook attempt');
}
