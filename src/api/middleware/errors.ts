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

/** A zod issue, as much of it as a message needs (zod 4's shape; the input itself is not reported). */
type Issue = {
  code?: string; path: PropertyKey[]; message: string; expected?: unknown; origin?: string; maximum?: number | bigint; minimum?: number | bigint;
  inclusive?: boolean; format?: string; values?: unknown[]; keys?: string[];
};

/** zod's own wording ("Invalid input: expected string, received undefined"); a schema's own message is kept as written. */
const ZOD_WORDING = /^(Invalid (input|string|option|key|element|union|type)|Too (big|small)|Unrecognized key|Invalid)/;
const UNITS: Record<string, [string, string]> = { string: ['character', 'characters'], array: ['item', 'items'], set: ['item', 'items'] };
const TYPES: Record<string, string> = { string: 'a string', number: 'a number', int: 'an integer', boolean: 'true or false', object: 'an object', array: 'a list', bigint: 'an integer' };

function bound(issue: Issue, most: boolean): string {
  const n = (most ? issue.maximum : issue.minimum)!;
  const unit = UNITS[issue.origin ?? ''];
  const words = most ? (issue.inclusive === false ? 'less than' : 'at most') : (issue.inclusive === false ? 'more than' : 'at least');
  if (unit) return `must be ${words} ${n} ${Number(n) === 1 ? unit[0] : unit[1]}${issue.origin === 'string' ? ' long' : ''}`;
  return `must be ${words} ${n}`;
}

function plainWords(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      if (/received undefined/.test(issue.message)) return 'is required';
      return `must be ${TYPES[String(issue.expected)] ?? String(issue.expected)}`;
    case 'too_big': return bound(issue, true);
    case 'too_small': return issue.origin === 'string' && issue.minimum === 1 ? 'must not be empty' : bound(issue, false);
    case 'invalid_value': return `must be one of ${(issue.values ?? []).map((v) => String(v)).join(', ')}`;
    case 'invalid_format': return issue.format === 'regex' ? 'is not in the expected format' : `must be a valid ${issue.format}`;
    default: return 'is not valid';
  }
}

/**
 * The first issue of a request that failed its schema as a person reads it: "amount is required", "order_no must
 * be at most 64 characters long", "Unknown field: secret"; `param` names the field (dotted path). A message the
 * schema wrote itself ("must be an event id (evt_…)") is kept, after the field's name.
 */
export function validationError(issue: Issue | undefined): AppError {
  let param = issue?.path.map(String).join('.') ?? '';
  if (issue?.code === 'unrecognized_keys') {
    const key = issue.keys?.[0] ?? '';
    param = [param, key].filter(Boolean).join('.');
    return new AppError('validation_failed', `Unknown field: ${key}`, param || undefined);
  }
  if (!issue) return new AppError('validation_failed', 'The request is not valid.');
  const words = ZOD_WORDING.test(issue.message) ? plainWords(issue) : issue.message.replace(/^(\w[\w.]*): /, '');
  return new AppError('validation_failed', param ? `${param} ${words}` : `The request body ${words}`, param || undefined);
}
