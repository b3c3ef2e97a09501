import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Principal } from '../context.js';
import { MAX_READ_BODY, redactBody, redactText } from '../../modules/request-logs/index.js';

type Who = { platformId: string; principal_type: 'secret_key' | 'publishable_key' | 'session'; key_id: string | null; user_id: string | null };

function whoOf(p: Principal | undefined): Who | null {
  if (!p) return null;
  if (p.kind === 'secret') return { platformId: p.platformId, principal_type: 'secret_key', key_id: p.keyId, user_id: null };
  if (p.kind === 'publishable') return { platformId: p.platformId, principal_type: 'publishable_key', key_id: p.keyId, user_id: null };
  if (p.kind === 'session' && p.platformId) return { platformId: p.platformId, principal_type: 'session', key_id: null, user_id: p.userId };
  return null;
}

/** The first MAX_READ_BODY bytes of a body (a copy: the client reads the original), the rest left unread. */
async function head(res: Response): Promise<string> {
  const reader = res.clone().body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_READ_BODY) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    // Not awaited: cancelling one branch of a tee settles only once the other branch (the client's) ends too,
    // which is after this middleware returns. Awaiting it hung every JSON answer longer than MAX_READ_BODY.
    reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_READ_BODY));
}

/**
 * Every answer of the API is JSON (kept), except a CSV export and an event stream, whose bodies are not read: a
 * stream never ends, and an export's rows are in the export itself.
 */
const KEPT_ANSWER = /^application\/(problem\+)?json\b/i;

async function bodiesOf(res: Response, readRequest: () => Promise<string>) {
  const answer = KEPT_ANSWER.test(res.headers.get('content-type') ?? '') ? await head(res).catch(() => '') : '';
  let code: string | null = null;
  if (res.status >= 400) {
    try {
      code = (JSON.parse(answer) as { error?: { code?: string } }).error?.code ?? null;
    } catch { /* not JSON */ }
  }
  const requestText = await readRequest().catch(() => '');
  return { error_code: code?.slice(0, 64) ?? null, request_body: redactBody(requestText), response_body: redactBody(answer) };
}

/**
 * Records every request of a platform's principal (secret or publishable key, dashboard session) in the request
 * log, with its bodies redacted and cut (modules/request-logs/redact.ts): the request's is already in memory (Hono
 * caches it), a JSON answer is a copy of at most MAX_READ_BODY read here. The write happens later, in batches
 * (modules/request-logs/buffer.ts), never on the request path. An event stream is one row, written when it opens.
 */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const who = whoOf(c.get('principal'));
    if (!who) return;
    const status = c.res.status;
    const bodies = await bodiesOf(c.res, () => (c.req.method === 'GET' || c.req.method === 'HEAD' ? Promise.resolve('') : c.req.text()));
    c.get('services').requestLogs.record({
      platform_id: who.platformId, principal_type: who.principal_type, key_id: who.key_id, user_id: who.user_id,
      request_id: (c.get('requestId') ?? 'unknown').slice(0, 128), method: c.req.method.slice(0, 16), path: redactText(c.req.path).slice(0, 2048), status,
      idempotency_key: c.req.header('idempotency-key')?.slice(0, 255) ?? null,
      duration_ms: Math.round(performance.now() - started),
      ...bodies,
      created_at: new Date(),
    });
  };
}
