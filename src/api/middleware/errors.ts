import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { AppError, errorBody } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';

/**
 * Three tiers: our AppError as is; framework errors mapped to our codes; anything else is logged with
 * the request id and answered as a masked 500 (never a stack trace or driver message).
 */
export function toAppError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 413) return new AppError('payload_too_large');
    if (err.status === 400) return new AppError('invalid_json', 'The request body is not valid JSON.');
    if (err.status === 401) return new AppError('unauthenticated');
    if (err.status === 404) return new AppError('not_found');
  }
  if (err instanceof SyntaxError) return new AppError('invalid_json');
  if (isDatabaseUnavailable(err)) {
    return new AppError('service_unavailable', 'The database is unavailable; retry shortly (with the same Idempotency-Key).', undefined, { 'Retry-After': '1' });
  }
  return null;
}

// Connection failures, admin shutdown / crash / cannot-connect-now, too many connections.
const DB_DOWN_CODES = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03', '53300', 'ECONNREFUSED', 'ECONNRESET']);
const DB_DOWN_MESSAGES = /Connection terminated|not queryable|timeout exceeded when trying to connect|is not currently accepting connections|the database system is (starting up|shutting down)/;

/**
 * The database went away (restart, failover, refused connections): a 503 with Retry-After tells clients to
 * retry, rather than a 500 that reads as a bug. Nothing of the request committed: its transaction failed.
 */
function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  return !!e && ((e.code !== undefined && DB_DOWN_CODES.has(e.code)) || DB_DOWN_MESSAGES.test(e.message ?? ''));
}

export function onError(err: unknown, c: Context<AppEnv>) {
  const requestId = c.get('requestId') ?? 'unknown';
  const known = toAppError(err);
  if (known) {
    if (known.code === 'service_unavailable') c.get('logger')?.warn({ request_id: requestId, err }, 'database unavailable');
    if (known.headers) for (const [k, v] of Object.entries(known.headers)) c.header(k, v);
    return c.json(errorBody(known, requestId), known.status as 400);
  }
  c.get('logger')?.error({ request_id: requestId, err }, 'unhandled error');
  return c.json(errorBody(new AppError('internal'), requestId), 500);
}

export function onNotFound(c: Context<AppEnv>) {
  return c.json(errorBody(new AppError('not_found', `No route for ${c.req.method} ${c.req.path}.`), c.get('requestId') ?? 'unknown'), 404);
}
