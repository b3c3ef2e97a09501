/**
 * Retry schedule (DESIGN §4): after the first attempt fails, retry after 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h, each with ±10 % jitter so a receiver that comes back is not hit by every retry at once;
 * then give up. Eight attempts over about 28 hours.
 */
const S = 1000;
const M = 60 * S;
const H = 60 * M;
export const RETRY_SCHEDULE_MS: readonly number[] = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];
export const JITTER = 0.1;
/** A Retry-After larger than this is not believed: one hostile header must not park a delivery for weeks. */
export const RETRY_AFTER_CAP_MS = 24 * H;

export type RetryOptions = {
  scheduleMs?: readonly number[];
  random?: () => number;
  retryAfterMs?: number | null;
  retryAfterCapMs?: number;
};

/**
 * Delay before the next attempt after `failedAttempts` consecutive failures (1 = the first attempt
 * failed), or null: give up. Retry-After is honoured as "not before": it can lengthen the wait (capped)
 * but never shorten it below the schedule, so `Retry-After: 0` cannot burn all retries in a second.
 */
export function nextRetryDelayMs(failedAttempts: number, opts: RetryOptions = {}): number | null {
  const schedule = opts.scheduleMs ?? RETRY_SCHEDULE_MS;
  const base = schedule[failedAttempts - 1];
  if (failedAttempts < 1 || base === undefined) return null;
  const random = opts.random ?? Math.random;
  const jittered = Math.round(base * (1 + (random() * 2 - 1) * JITTER));
  const retryAfter = opts.retryAfterMs ?? null;
  if (retryAfter === null) return jittered;
  return Math.max(jittered, Math.min(retryAfter, opts.retryAfterCapMs ?? RETRY_AFTER_CAP_MS));
}

/** Retry-After is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3); anything else is ignored. */
export function parseRetryAfter(value: string | undefined | null, now: Date = new Date()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), 1e9) * 1000;
  if (!/[a-z]/i.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}
