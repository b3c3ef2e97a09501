import type { Context, MiddlewareHandler } from 'hono';
import { adminTokensOf, trustedOrigins, type Config } from '../../config.js';
import { AppError } from '../../lib/errors.js';
import { safeEqual } from '../../lib/ids.js';
import type { KeyActor, SessionActor } from '../../modules/keys/index.js';
import type { Caller } from '../../modules/orders/index.js';
import { clientAddress, peerAddress } from '../client-address.js';
import type { AppEnv, Principal, PrincipalKind } from '../context.js';
import type { CredentialGate } from './rate-limit.js';

/**
 * Resolves who is calling, once per request. A bearer that is not a valid key (or the admin token on
 * /_/ routes) is a 401 even if a session cookie is also present: an explicit credential never silently
 * falls back to another. `gate` (rate-limit.ts credentialGate) is passed before a bearer is checked: past its
 * bound a client's invalid credentials are refused (429) before any lookup.
 */
export const resolvePrincipal = (gate: CredentialGate = () => () => {}): MiddlewareHandler<AppEnv> => async (c, next) => {
  const services = c.get('services');
  const header = c.req.header('authorization');
  let principal: Principal = { kind: 'public' };
  let token: string | undefined;
  if (header !== undefined) {
    token = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!token) throw new AppError('unauthenticated', 'Authorization must be "Bearer <key>".');
    const admins = adminTokensOf(services.config);
    if (admins.length > 0 && (c.req.path.startsWith('/_/') || c.req.path === '/metrics')) {
      const valid = gate(c);
      // Every configured token is compared (constant time each), so timing tells nothing about which matched.
      if (!admins.map((a) => safeEqual(token!, a)).includes(true)) throw new AppError('unauthenticated', 'Invalid admin token.');
      valid();
      principal = { kind: 'admin' };
    } else {
      const recalled = checksKeyItself(c.req.method, c.req.path, c.req.header('idempotency-key')) ? services.keys.recall(token) : null;
      if (recalled?.kind === 'secret') {
        principal = { kind: 'secret', platformId: recalled.platformId, keyId: recalled.keyId, unverified: true };
      } else {
        const valid = gate(c);
        const key = await services.keys.authenticate(token);
        if (!key) throw new AppError('unauthenticated', INVALID_KEY);
        valid();
        principal = { kind: key.kind, platformId: key.platformId, keyId: key.keyId };
      }
    }
  } else if (c.req.header('cookie')) {
    const session = await services.auth.api.getSession({ headers: c.req.raw.headers });
    if (session) {
      assertSameOrigin(c.req.method, c.req.header('origin'), c.req.header('sec-fetch-site'), services.config);
      const platform = await services.platforms.findByUser(session.user.id);
      principal = { kind: 'session', userId: session.user.id, email: session.user.email, sessionId: session.session.id, platformId: platform?.id ?? null };
    }
  }
  c.set('principal', principal);
  await next();
  if (principal.kind === 'secret' && principal.unverified && token) {
    // A success means the route's statement found the key unrevoked. Any other answer may have come before
    // that statement (validation, an unknown merchant): a revoked key must get 401 there too, as it would
    // without the shortcut, so the key is read now. Only failures pay for this.
    if (c.res.status < 300) services.keys.touched(principal.keyId);
    else if (c.res.status !== 401 && !(await services.keys.authenticate(token))) throw new AppError('unauthenticated', INVALID_KEY);
  }
};

const INVALID_KEY = 'Invalid or revoked API key.';

/**
 * The routes whose service checks that the key is unrevoked inside the statement that acts (order and
 * checkout creation: `callerOf`, orders repo `signingContext` and `insertIfCurrent`). For them a secret key
 * this instance has already found valid is not read again first: one round trip less on the hottest path.
 * Not with an Idempotency-Key, whose middleware acts in the key's platform before the route runs.
 */
const KEY_CHECKED_BY_ROUTE = new Set(['POST /v1/orders', 'POST /v1/checkout/sessions']);
function checksKeyItself(method: string, path: string, idempotencyKey: string | undefined) {
  return idempotencyKey === undefined && KEY_CHECKED_BY_ROUTE.has(`${method} ${path}`);
}

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
 * 403 secret_key_required; any API key on a route only a dashboard session may call (onboarding, creating
 * keys: a leaked key must not mint more) is 403 session_required; no credential is 401.
 */
export const requireAuth = (...kinds: PrincipalKind[]): MiddlewareHandler<AppEnv> => async (c, next) => {
  const p = c.get('principal');
  if (kinds.includes(p.kind)) return next();
  const isKey = p.kind === 'secret' || p.kind === 'publishable';
  if (isKey && kinds.includes('session') && !kinds.includes('secret')) throw new AppError('session_required');
  if (p.kind === 'publishable') throw new AppError('secret_key_required');
  if (p.kind === 'public') {
    throw new AppError('unauthenticated', kinds.includes('session') ? 'Sign in or send a secret key.' : 'Send Authorization: Bearer sk_live_….');
  }
  if (p.kind === 'session' && kinds.includes('secret')) throw new AppError('secret_key_required');
  throw new AppError('forbidden');
};

/** The platform a tenant-scoped request acts for; a signed-in account without a platform cannot act yet. */
export function platformIdOf(p: Principal): string {
  if (p.kind === 'secret' && p.unverified) throw new Error(UNVERIFIED_MISUSE);
  if (p.kind === 'secret' || p.kind === 'publishable') return p.platformId;
  if (p.kind === 'session' && p.platformId) return p.platformId;
  throw new AppError('forbidden', 'This account has no platform yet: complete POST /v1/onboarding/self first.');
}

/**
 * Who is changing a key, for the audit log: the signed-in user (id and e-mail) or the secret key, with the
 * client address as client-address.ts works it out (TRUST_PROXY_HOPS; never a header the client alone wrote).
 */
export function keyActorOf(c: Context<AppEnv>): KeyActor {
  const p = c.get('principal');
  if (p.kind === 'session') return sessionActorOf(c);
  if (p.kind !== 'secret' || p.unverified) throw new AppError('forbidden');
  return { kind: 'secret_key', keyId: p.keyId, clientAddress: addressOf(c) };
}

export function sessionActorOf(c: Context<AppEnv>): SessionActor {
  const p = c.get('principal');
  if (p.kind !== 'session') throw new AppError('session_required');
  return { kind: 'session', userId: p.userId, email: p.email, clientAddress: addressOf(c) };
}

const addressOf = (c: Context<AppEnv>) => clientAddress(peerAddress(c), c.req.header('x-forwarded-for'), c.get('services').config.trustProxyHops);

const UNVERIFIED_MISUSE = 'A secret key not yet checked reached code that does not check it (see KEY_CHECKED_BY_ROUTE).';

/**
 * For the routes of KEY_CHECKED_BY_ROUTE: the platform to act for and, when the key was recognised from
 * memory, the key the service's statement must find unrevoked (it answers 401 otherwise).
 */
export function callerOf(p: Principal): Caller {
  if (p.kind === 'secret' && p.unverified) return { platformId: p.platformId, uncheckedKeyId: p.keyId };
  return { platformId: platformIdOf(p), uncheckedKeyId: null };
}

/**
 * Idempotency keys are kept per caller. Not for publishable keys: they are public, may not mutate
 * anything, and must never be able to occupy a key in the platform's own (secret-key) scope.
 */
export function idempotencyScope(p: Principal): string | null {
  if (p.kind === 'secret' && p.unverified) throw new Error(UNVERIFIED_MISUSE);
  if (p.kind === 'secret') return `plt:${p.platformId}`;
  if (p.kind === 'session') return `usr:${p.userId}`;
  return null;
}
