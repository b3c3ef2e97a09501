import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (SPEC §6): v1 = hex HMAC-SHA256 keyed with the endpoint secret over
 * "<timestamp>.<rawBody>", the timestamp being unix seconds sent in X-Webhook-Timestamp. Binding the
 * timestamp into the MAC lets receivers refuse replays older than their tolerance (DESIGN: 300 s).
 */
export const SIGNATURE_VERSION = 'v1';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export function computeSignature(secret: string, timestamp: number, rawBody: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
}

/** Header value; during a secret roll the current secret signs first, the previous one second. */
export function signatureHeader(secrets: readonly string[], timestamp: number, rawBody: string): string {
  if (secrets.length === 0) throw new Error('signatureHeader: no secret');
  return secrets.map((s) => `${SIGNATURE_VERSION}=${computeSignature(s, timestamp, rawBody)}`).join(',');
}

/** The v1 values of a header, ignoring unknown versions so a future scheme can be added alongside. */
export function parseSignatureHeader(header: string): string[] {
  return header.split(',').map((p) => p.trim()).filter((p) => p.startsWith(`${SIGNATURE_VERSION}=`))
    .map((p) => p.slice(SIGNATURE_VERSION.length + 1)).filter((v) => /^[0-9a-f]{64}$/.test(v));
}

/**
 * What a receiver does (and what our docs show): any v1 value matches in constant time and the
 * timestamp is within the tolerance window.
 */
export function verifySignature(opts: {
  secret: string; header: string; timestamp: string | number; rawBody: string; toleranceSeconds?: number; nowSeconds?: number;
}): boolean {
  const ts = typeof opts.timestamp === 'number' ? opts.timestamp : Number(opts.timestamp);
  if (!Number.isSafeInteger(ts)) return false;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - ts) > (opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(computeSignature(opts.secret, ts, opts.rawBody), 'hex');
  return parseSignatureHeader(opts.header).some((v) => timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

/**
 * Standard Webhooks (standardwebhooks.com), sent beside X-Webhook-Signature so the `standardwebhooks` and Svix
 * libraries verify deliveries as they are: `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * keyed with the bytes of the secret after `whsec_`, read as base64 (what those libraries do with a whsec_ secret;
 * ours are 32 base62 characters, which is valid base64 for 24 bytes). Space-separated during a secret roll.
 */
export function standardSignatureHeader(secrets: readonly string[], msgId: string, timestamp: number, rawBody: string): string {
  if (secrets.length === 0) throw new Error('standardSignatureHeader: no secret');
  return secrets.map((s) => {
    const key = Buffer.from(s.startsWith('whsec_') ? s.slice(6) : s, 'base64');
    return `v1,${createHmac('sha256', key).update(`${msgId}.${timestamp}.${rawBody}`, 'utf8').digest('base64')}`;
  }).join(' ');
}
