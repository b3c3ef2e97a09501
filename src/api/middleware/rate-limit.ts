import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../../lib/errors.js';
import { clientAddress, peerAddress } from '../client-address.js';
import type { AppEnv } from '../context.js';

/**
 * Token buckets: `burst` requests at once, refilled at `perSecond`. Per instance and in memory (DESIGN note in
 * docs/decisions.md, "Rate limits"): with n instances behind a balancer a client may get up to n times the rate.
 */
export type RatePolicy = { name: string; perSecond: number; burst: number };

export type RateDecision = {
  allowed: boolean;
  /** Whole requests left in the bucket after this one. */
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit t=). */
  resetSeconds: number;
  /** Seconds until one request is allowed again (Retry-After), when refused. */
  retryAfterSeconds: number;
};

type Bucket = { tokens: number; at: number; policy: RatePolicy };

/** The clock is injected so tests move time instead of sleeping. Memory: at most `maxKeys` buckets. */
export function createRateLimiter(opts: { now?: () => number; maxKeys?: number } = {}) {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 100_000;
  const buckets = new Map<string, Bucket>();

  /** Full buckets carry no state worth keeping; if that is not enough, the oldest keys go (they restart full). */
  function evict(t: number) {
    for (const [key, b] of buckets) {
      if (b.tokens + ((t - b.at) / 1000) * b.policy.perSecond >= b.policy.burst) buckets.delete(key);
    }
    for (const key of buckets.keys()) {
      if (buckets.size < maxKeys) break;
      buckets.delete(key);
    }
  }

  return {
    take(key: string, policy: RatePolicy): RateDecision {
      const t = now();
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) evict(t);
        b = { tokens: policy.burst, at: t, policy };
        buckets.set(key, b);
      } else {
        b.tokens = Math.min(policy.burst, b.tokens + (Math.max(0, t - b.at) / 1000) * policy.perSecond);
        b.at = t;
        b.policy = policy;
      }
      const allowed = b.tokens >= 1;
      if (allowed) b.tokens -= 1;
      return {
        allowed,
        remaining: Math.floor(b.tokens),
        resetSeconds: Math.ceil((policy.burst - b.tokens) / policy.perSecond),
        retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / policy.perSecond)),
      };
    },
    size: () => buckets.size,
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * draft-ietf-httpapi-ratelimit-headers (-08 and later): `RateLimit-Policy: "<name>";q=<quota>;w=<window s>` and
 * `RateLimit: "<name>";r=<remaining>;t=<reset s>`. A token bucket is described as its burst (q) per the time
 * it takes to refill from empty (w).
 */
export function rateLimitHeaders(policy: RatePolicy, d: RateDecision): Record<string, string> {
  const window = Math.max(1, Math.ceil(policy.burst / policy.perSecond));
  const headers: Record<string, string> = {
    'RateLimit-Policy': `"${policy.name}";q=${policy.burst};w=${window}`,
    RateLimit: `"${policy.name}";r=${d.remaining};t=${d.resetSeconds}`,
  };
  if (!d.allowed) headers['Retry-After'] = String(d.retryAfterSeconds);
  return headers;
}

function apply(c: Context<AppEnv>, policy: RatePolicy, d: RateDecision) {
  const headers = rateLimitHeaders(policy, d);
  if (!d.allowed) throw new AppError('rate_limited', `Too many requests: retry in ${d.retryAfterSeconds} s.`, undefined, headers);
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
}

/**
 * Per secret key, after resolvePrincipal. The policy is the platform's (platforms.rate_limit_per_second /
 * rate_limit_burst) or the configured default; `policyFor` caches it, so the hot path reads no row.
 */
export function limitSecretKeys(limiter: RateLimiter, policyFor: (platformId: string) => RatePolicy | Promise<RatePolicy>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const p = c.get('principal');
    if (p.kind === 'secret') {
      const found = policyFor(p.platformId);
      const policy = found instanceof Promise ? await found : found;
      apply(c, policy, limiter.take(`sk:${p.keyId}`, policy));
    }
    await next();
  };
}

/**
 * Per client address (as client-address.ts works it out: TCP peer, or X-Forwarded-For behind TRUST_PROXY_HOPS
 * proxies), for the public routes and sign-up/sign-in. `methods`: only these are counted. A request without an
 * address (only in-process, never over a socket) is not counted.
 */
export function limitByAddress(limiter: RateLimiter, policy: RatePolicy, trustProxyHops: number, methods: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A HEAD runs the GET handler (Hono answers it with the GET's headers): it is counted as one.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (methods.includes(method)) {
      const address = clientAddress(peerAddress(c), c.req.header('x-forwarded-for'), trustProxyHops);
      if (address !== null) apply(c, policy, limiter.take(`ip:${policy.name}:${address}`, policy));
    }
    await next();
  };
}

export type RateLimitConfig = {
  /** Per secret key, unless the platform has its own (platforms.rate_limit_per_second / rate_limit_burst). */
  perSecond: number;
  burst: number;
  /** Per client address on the public routes (session read, invitation read and complete). */
  publicPerSecond: number;
  publicBurst: number;
  /** Per client address on sign-up and sign-in, a minute's worth at once. */
  authPerMinute: number;
};

const POLICY_TTL_MS = 60_000;

/**
 * A platform's secret-key policy, cached for a minute per instance: a change to the platform's columns takes
 * effect within a minute, and the hot path reads no row.
 */
export function platformPolicies(
  read: (platformId: string) => Promise<{ rate_limit_per_second: number | null; rate_limit_burst: number | null } | undefined>,
  defaults: Pick<RateLimitConfig, 'perSecond' | 'burst'>,
  now: () => number = Date.now,
) {
  const cache = new Map<string, { policy: RatePolicy; until: number }>();
  const fallback: RatePolicy = { name: 'secret-key', perSecond: defaults.perSecond, burst: defaults.burst };
  return (platformId: string): RatePolicy | Promise<RatePolicy> => {
    const hit = cache.get(platformId);
    if (hit && hit.until > now()) return hit.policy;
    return read(platformId).then((row) => {
      const perSecond = row?.rate_limit_per_second ?? defaults.perSecond;
      const burst = row?.rate_limit_burst ?? Math.max(row?.rate_limit_per_second ? perSecond * 2 : defaults.burst, 1);
      const policy = perSecond === fallback.perSecond && burst === fallback.burst ? fallback : { name: 'secret-key', perSecond, burst };
      if (cache.size > 10_000) cache.clear();
      cache.set(platformId, { policy, until: now() + POLICY_TTL_MS });
      return policy;
    });
  };
}
