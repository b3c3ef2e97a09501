import { redactSecrets } from '../../lib/logger.js';

/** Bodies are stored cut to this, for every request (the request's own limit is 32 KB). */
export const MAX_STORED_BODY = 8 * 1024;
/** The most of an answer read to store its first MAX_STORED_BODY: within it a JSON answer is parsed and walked. */
export const MAX_READ_BODY = 64 * 1024;

/** Keys whose values are never stored: keys, secrets, signatures, passwords, tokens (and their parts). */
const SECRET_KEY = /(secret|password|passphrase|token|signature|private_?key|api_?key|authorization|cookie|^sig$|^[rsv]$|^nonce$|whsec)/i;
const REDACTED = '[redacted]';
/** Bearer-like tokens wherever they appear (a path, a URL in a body, free text): keys, invitation, checkout and subscription links. */
const TOKEN = /\b(sk_live|pk_live|moi_live|cs_live|sub_live|whsec)_[0-9A-Za-z]+/g;
/** `"<secret-named key>": "<value>"` in JSON text that could not be parsed (cut at MAX_READ_BODY). */
const SECRET_MEMBER = /"([^"\\]{0,64})"(\s*:\s*)"(?:[^"\\]|\\.)*"?/g;

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

/** Tokens and key-shaped text masked (a path, or text that is not JSON). */
export function redactText(text: string): string {
  return redactSecrets(text).replace(TOKEN, '$1_[redacted]');
}

/**
 * A request or response body as the request log keeps it: JSON with every secret-named field replaced (text cut
 * before its end: each secret-named member's string value), then any token-shaped text left masked, cut to
 * MAX_STORED_BODY. A body that is not JSON is kept as text, masked the same way. NUL is dropped (PostgreSQL text
 * cannot hold it).
 */
export function redactBody(text: string): string | null {
  if (text === '') return null;
  let out: string;
  try {
    out = JSON.stringify(walk(JSON.parse(text), 0));
  } catch {
    out = text.replace(SECRET_MEMBER, (m, key: string, colon: string) => (SECRET_KEY.test(key) ? `"${key}"${colon}"${REDACTED}"` : m));
  }
  return redactText(out).replace(/\u0000/g, '').slice(0, MAX_STORED_BODY);
}
