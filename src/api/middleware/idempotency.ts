import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../lib/errors.js';
import { runWithIdempotencyKey } from '../../modules/idempotency/context.js';
import type { IdemKey } from '../../modules/idempotency/repo.js';
import type { IdempotencyService } from '../../modules/idempotency/service.js';
import type { AppEnv } from '../context.js';
import { idempotencyScope } from './auth.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Frees a key whose request did not complete. When the database itself is what failed, the release fails
 * too and the key would answer idempotency_key_in_use until its 90 s lapse, so every retry of a request
 * that met a database blip was refused for a minute and a half. The release is retried in the background
 * while the lock is young: never past 60 s after the claim, so it can never free a lock that another
 * request took over after the lapse.
 */
const RELEASE_WITHIN_MS = 60_000;
async function releaseSoon(idempotency: IdempotencyService, key: IdemKey, claimedAt: number) {
  try {
    await idempotency.release(key);
    return;
  } catch {
    /* the database is away: try again below */
  }
  const retry = (delay: number) => {
    setTimeout(() => {
      idempotency.release(key).catch(() => {
        if (Date.now() + delay < claimedAt + RELEASE_WITHIN_MS) retry(Math.min(delay * 2, 2_000));
      });
    }, delay).unref();
  };
  retry(250);
}
/**
 * Answers given before the endpoint did anything are not kept: invalid input (400/422), a credential
 * refused by the route's guard (401/403; otherwise a refused request would burn the key for the
 * right one) and rate limiting (429).
 */
const NOT_STORED = new Set([400, 401, 403, 422, 429]);

/**
 * Idempotency-Key (DESIGN §3). Same key + same request → the stored response with
 * Idempotent-Replayed: true; a different request → 409 duplicate_idempotency_key; still running → 409
 * idempotency_key_in_use. Validation failures (400/422) and 5xx are not stored, so a fixed request may
 * reuse the key. Public callers have no scope to keep keys in, so the header is ignored for them.
 */
export const idempotency = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const header = c.req.header('idempotency-key');
  if (header === undefined || !MUTATING.has(c.req.method)) return next();
  if (header.length === 0 || header.length > 255) {
    throw new AppError('validation_failed', 'Idempotency-Key must be 1 to 255 characters.', 'Idempotency-Key');
  }
  const scope = idempotencyScope(c.get('principal'));
  if (!scope) return next();
  const { idempotency } = c.get('services');
  const rawBody = await c.req.text(); // cached: the exact bytes received, read once per request
  const key = { scope, key: header };
  const claimedAt = Date.now();
  const claim = await idempotency.claim(key, c.req.method, c.req.path, rawBody);
  if (claim.kind === 'replay') {
    c.header('Idempotent-Replayed', 'true');
    return c.body(claim.body, claim.status as 200, { 'Content-Type': 'application/json' });
  }
  try {
    await runWithIdempotencyKey((tx, status, body) => idempotency.completeInTx(tx, key, status, body), () => next());
  } catch (err) {
    await releaseSoon(idempotency, key, claimedAt);
    throw err;
  }
  const status = c.res.status;
  if (NOT_STORED.has(status) || status >= 500) {
    await releaseSoon(idempotency, key, claimedAt);
    return;
  }
  await idempotency.complete(key, status, await c.res.clone().text());
};
