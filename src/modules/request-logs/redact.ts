import { redactSecrets } from '../../lib/logger.js';

/** Bodies stored for failures are cut to this (the request's own limit is 32 KB). */
export const MAX_STORED_BODY = 8 * 1024;

/** Keys whose values are never stored: keys, secrets, signatures, passwords, tokens (and their parts). */
const SECRET_KEY = /(secret|password|passphrase|token|signature|private_?key|api_?key|authorization|cookie|^sig$|^[rsv]$|^nonce$|whsec)/i;
const REDACTED = '[redacted]';

function walk(value: unknown, depth: number): unknown {
  if (depth > 20) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : walk(v, depth + 1);
    return out;
  }
  return value;
}

/**
 * A request or response body as the request log keeps it: JSON with every secret-named field replaced, then
 * any key-shaped text left (sk_live_…, whsec_…: lib/logger.ts redactSecrets) masked, cut to MAX_STORED_BODY.
 * A body that is not JSON is kept as text, masked the same way. NUL is dropped (PostgreSQL text cannot hold it).
 */
export function redactBody(text: string): string | null {
  if (text === '') return null;
  let out: string;
  try {
    out = JSON.stringify(walk(JSON.parse(text), 0));
  } catch {
    out = text;
  }
  return redactSecrets(out).replace(/\u0000/g, '').slice(0, MAX_STORED_BODY);
}
