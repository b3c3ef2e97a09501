import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../lib/errors.js';
import type { AppEnv } from '../context.js';

/** U+0000 or an unpaired UTF-16 surrogate (with the u flag a well-formed pair is one code point, outside the class). */
const UNSTORABLE = /[\u0000\ud800-\udfff]/u;
const ESCAPED_UNSTORABLE = /\\u(0000|d[89a-f])/i;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The first string or key of a parsed JSON value that cannot be stored, as a dotted path; iterative, so depth cannot overflow the stack. */
function firstUnstorable(root: unknown): string | null {
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) return path;
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push([v, path ? `${path}.${i}` : String(i)]));
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        const p = path ? `${path}.${k}` : k;
        if (UNSTORABLE.test(k)) return path || k.replace(UNSTORABLE, '?');
        stack.push([v, p]);
      }
    }
  }
  return null;
}

const refuse = (param: string) =>
  new AppError('validation_failed', `${param}: must not contain NUL characters or unpaired UTF-16 surrogates`, param);

/**
 * PostgreSQL text cannot hold U+0000 and jsonb refuses it and the escape of an unpaired surrogate: such a
 * value reaching an INSERT or a WHERE clause fails the statement, which surfaced as a 500. Neither means
 * anything in any field of this API, so they are refused at the edge, wherever they appear (path, query,
 * any string or key of a JSON body), with 422 validation_failed naming the field. Bodies that are not
 * JSON are left to the route (400 invalid_json).
 */
export const storableText = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const url = c.req.url;
  const q = url.indexOf('?');
  if (/%00/i.test(q === -1 ? url : url.slice(0, q))) throw refuse('path');
  if (q !== -1) {
    for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
      if (UNSTORABLE.test(name) || UNSTORABLE.test(value)) throw refuse(name.replace(UNSTORABLE, '?'));
    }
  }
  if (BODY_METHODS.has(c.req.method) && /^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
    // c.req.text() reads the body once and caches it: the validator's c.req.json() and the idempotency
    // fingerprint reuse these bytes instead of cloning the request stream again.
    const text = await c.req.text();
    // In valid JSON such a value can only be written as an escape (\u0000, \ud800–\udfff); without one
    // the body is storable and is not parsed twice. With one (or an escaped backslash before "u") it is
    // parsed and walked.
    if (!ESCAPED_UNSTORABLE.test(text)) return next();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return next();
    }
    const bad = firstUnstorable(parsed);
    if (bad !== null) throw refuse(bad || 'body');
  }
  await next();
};
