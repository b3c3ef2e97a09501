import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types.js';

/**
 * Webhook verification. Each delivery is signed over its exact bytes:
 *   X-Webhook-Timestamp: <unix seconds>
 *   X-Webhook-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>[,v1=<…>]
 * During a secret roll the header carries one v1= value per live secret (new first). A delivery is
 * genuine when any v1= value matches one of your secrets and the timestamp is recent (replays of an old,
 * captured delivery are refused).
 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationReason =
  | 'missing_secret'
  | 'missing_timestamp'
  | 'missing_signature'
  | 'invalid_timestamp'
  | 'timestamp_outside_tolerance'
  | 'no_matching_signature'
  | 'invalid_body';

export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Node's IncomingHttpHeaders, a fetch Headers, or any record of header names (any case) to values. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export type VerifyOptions = {
  /** Largest accepted |now − timestamp| in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Current unix time in seconds (tests). */
  nowSeconds?: number;
};

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    return Array.isArray(v) ? v.join(',') : v;
  }
  return undefined;
}

function hmac(secret: string, timestamp: string, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest();
}

/**
 * Verifies a delivery and returns its parsed, typed event; throws WebhookVerificationError otherwise.
 * Pass the raw body exactly as received (a string or the bytes), never a re-serialized JSON object:
 * the signature covers the bytes.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeadersLike,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new WebhookVerificationError('missing_secret', 'No webhook secret given (whsec_… from the endpoint creation)');
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new WebhookVerificationError('invalid_body', 'rawBody must be the raw request body (string or bytes), not a parsed object');
  }
  const timestamp = header(headers, 'x-webhook-timestamp');
  if (!timestamp) throw new WebhookVerificationError('missing_timestamp', 'Missing X-Webhook-Timestamp header');
  const signature = header(headers, 'x-webhook-signature');
  if (!signature) throw new WebhookVerificationError('missing_signature', 'Missing X-Webhook-Signature header');
  if (!/^\d{1,12}$/.test(timestamp.trim())) throw new WebhookVerificationError('invalid_timestamp', 'X-Webhook-Timestamp is not unix seconds');

  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const age = now - Number(timestamp.trim());
  if (Math.abs(age) > tolerance) {
    throw new WebhookVerificationError('timestamp_outside_tolerance', `Timestamp is ${age} s from now (tolerance ${tolerance} s)`);
  }

  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const expected = secrets.map((s) => hmac(s, timestamp.trim(), bytes));
  const candidates = signature.split(',').map((p) => p.trim())
    .filter((p) => p.startsWith('v1=')).map((p) => p.slice(3))
    .filter((v) => /^[0-9a-fA-F]{64}$/.test(v)).map((v) => Buffer.from(v, 'hex'));
  // Every candidate against every secret, without stopping at the first match: the time taken does not
  // depend on which value (or how much of it) matched.
  let matched = false;
  for (const c of candidates) for (const e of expected) matched = timingSafeEqual(c, e) || matched;
  if (!matched) throw new WebhookVerificationError('no_matching_signature', 'No v1 signature matches this secret');

  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The body is not JSON');
  }
}

/**
 * The Standard Webhooks signature (standardwebhooks.com) the service sends beside X-Webhook-Signature:
 * `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>`, the key being the part of the secret after
 * `whsec_` read as base64 (what the `standardwebhooks` and Svix libraries do with a whsec_ secret).
 */
export function standardWebhookSignature(rawBody: string, secret: string, eventId: string, timestampSeconds: number): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${eventId}.${timestampSeconds}.${rawBody}`, 'utf8').digest('base64')}`;
}

/**
 * The headers the service would send for `rawBody` (both signature schemes): for testing your webhook handler
 * without a delivery, and what `trisettle listen` forwards with.
 */
export function signWebhook(rawBody: string, secret: string, opts: { timestampSeconds?: number; eventId?: string } = {}): Record<string, string> {
  const seconds = opts.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const timestamp = String(seconds);
  const id = opts.eventId ?? 'evt_test';
  return {
    'content-type': 'application/json',
    'x-webhook-id': id,
    'x-webhook-timestamp': timestamp,
    'x-webhook-signature': `v1=${hmac(secret, timestamp, Buffer.from(rawBody, 'utf8')).toString('hex')}`,
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': standardWebhookSignature(rawBody, secret, id, seconds),
  };
}
