import type { MiddlewareHandler } from 'hono';
import { trustedOrigins, type Config } from '../../config.js';
import { AppError } from '../../lib/errors.js';
import { safeEqual } from '../../lib/ids.js';
import type { AppEnv, Principal, PrincipalKind } from '../context.js';

/**
 * Resolves who is calling, once per request. A bearer that is not a valid key (or the admin token on
 * /_/ routes) is a 401 even if a session cookie is also present: an explicit credential never silently
 * falls back to another.
 */
export const resolvePrincipal = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const services = c.get('services');
  const header = c.req.header('authorization');
  let principal: Principal = { kind: 'public' };
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match?.[1]) throw new AppError('unauthenticated', 'Authorization must be "Bearer <key>".');
    const token = match[1];
    const admin = services.config.adminToken;
    if (admin && c.req.path.startsWith('/_/') || admin && c.req.path === '/metrics') {
      if (!safeEqual(token, admin)) throw new AppError('unauthenticated', 'Invalid admin token.');
      principal = { kind: 'admin' };
    } else {
      const key = await services.keys.authenticate(token);
      if (!key) throw new AppError('unauthenticated', 'Invalid or revoked API key.');
      principal = { kind: key.kind, platformId: key.platformId, keyId: key.keyId };
    }
  } else if (c.req.header('cookie')) {
    const session = await services.auth.api.getSession({ headers: c.req.raw.headers });
    if (session) {
      assertSameOrigin(c.req.method, c.req.header('origin'), c.req.header('sec-fetch-site'), services.config);
      const platform = await services.platforms.findByUser(session.user.id);
      principal = { kind: 'session', userId: session.user.id, sessionId: session.session.id, platformId: platform?.id ?? null };
    }
  }
  c.set('principal', principal);
  await next();
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/**
 * CSRF: a cookie rides along with any cross-site request, so a session may only change things when the
 * request comes from our own pages. A browser always sends Origin on a cross-origin POST; when it is
 * absent (non-browser client) a Fetch-Metadata "cross-site" still refuses. JSON-only bodies and
 * SameSite=Lax cookies are further layers, not the only one.
 */
function assertSameOrigin(method: string, origin: string | undefined, fetchSite: string | undefined, config: Config) {
  if (SAFE_METHODS.has(method)) return;
  if (origin === undefined) {
    if (fetchSite === 'cross-site') throw new AppError('forbidden', 'Cross-site request refused.');
    return;
  }
  const trusted = trustedOrigins(config);
  const from = originOf(origin);
  if (from === null || !trusted.includes(from)) {
    throw new AppError('forbidden', 'Cross-origin request refused: this session may only be used from the dashboard.');
  }
}

/**
 * Route guard: the kinds of principal a route accepts. A publishable key where a secret key is needed is
 * 403 secret_key_required; no credential is 401.
 */
export const requireAuth = (...kinds: PrincipalKind[]): MiddlewareHandler<AppEnv> => async (c, next) => {
  const p = c.get('principal');
  if (kinds.includes(p.kind)) return next();
  if (p.kind === 'publishable') throw new AppError('secret_key_required');
  if (p.kind === 'public') {
    throw new AppError('unauthenticated', kinds.includes('session') ? 'Sign in or send a secret key.' : 'Send Authorization: Bearer sk_live_….');
  }
  if (p.kind === 'session' && kinds.includes('secret')) throw new AppError('secret_key_required');
  throw new AppError('forbidden');
};

/** The platform a tenant-scoped request acts for; a signed-in account without a platform cannot act yet. */
export function platformIdOf(p: Principal): string {
  if (p.kind === 'secret' || p.kind === 'publishable') return p.platformId;
  if (p.kind === 'session' && p.platformId) return p.platformId;
  throw new AppError('forbidden', 'This account has no platform yet: complete POST /v1/onboarding/self first.');
}

/**
 * Idempotency keys are kept per caller. Not for publishable keys: they are public, may not mutate
 * anything, and must never be able to occupy a key in the platform's own (secret-key) scope.
 */
export function idempotencyScope(p: Principal): string | null {
  if (p.kind === 'secret') return `plt:${p.platformId}`;
  if (p.kind === 'session') return `usr:${p.userId}`;
  return null;
}
