import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Principal } from '../context.js';
import { redactBody } from '../../modules/request-logs/index.js';

type Who = { platformId: string; principal_type: 'secret_key' | 'publishable_key' | 'session'; key_id: string | null; user_id: string | null };

function whoOf(p: Principal | undefined): Who | null {
  if (!p) return null;
  if (p.kind === 'secret') return { platformId: p.platformId, principal_type: 'secret_key', key_id: p.keyId, user_id: null };
  if (p.kind === 'publishable') return { platformId: p.platformId, principal_type: 'publishable_key', key_id: p.keyId, user_id: null };
  if (p.kind === 'session' && p.platformId) return { platformId: p.platformId, principal_type: 'session', key_id: null, user_id: p.userId };
  return null;
}

async function failureOf(res: Response, readRequest: () => Promise<string>) {
  const responseText = await res.clone().text().catch(() => '');
  let code: string | null = null;
  try {
    code = (JSON.parse(responseText) as { error?: { code?: string } }).error?.code ?? null;
  } catch { /* not JSON */ }
  const requestText = await readRequest().catch(() => '');
  return { error_code: code?.slice(0, 64) ?? null, request_body: redactBody(requestText), response_body: redactBody(responseText) };
}

/**
 * Records every request of a platform's principal (secret or publishable key, dashboard session) in the
 * request log. Successes cost one object pushed to a queue; failures also read the bodies (already in
 * memory: Hono caches the request's, the answer is a small JSON). The write happens later, in batches
 * (modules/request-logs/buffer.ts), never on the request path.
 */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const who = whoOf(c.get('principal'));
    if (!who) return;
    const status = c.res.status;
    const failure = status >= 400 ? await failureOf(c.res, () => c.req.text()) : null;
    c.get('services').requestLogs.record({
      platform_id: who.platformId, principal_type: who.principal_type, key_id: who.key_id, user_id: who.user_id,
      request_id: (c.get('requestId') ?? 'unknown').slice(0, 128), method: c.req.method.slice(0, 16), path: c.req.path.slice(0, 2048), status,
      idempotency_key: c.req.header('idempotency-key')?.slice(0, 255) ?? null,
      duration_ms: Math.round(performance.now() - started),
      error_code: failure?.error_code ?? null, request_body: failure?.request_body ?? null, response_body: failure?.response_body ?? null,
      created_at: new Date(),
    });
  };
}
