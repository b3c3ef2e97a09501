import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../../lib/errors.js';
import { addressKey, clientAddress, peerAddress } from '../client-address.js';
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
    /** Gives back a token taken by `take` (credentialGate: the credential proved valid). */
    give(key: string) {
      const b = buckets.get(key);
      if (b) b.tokens = Math.min(b.policy.burst, b.tokens + 1);
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

function refuse(policy: RatePolicy, d: RateDecision) {
  if (!d.allowed) throw new AppError('rate_limited', `Too many requests: retry in ${d.retryAfterSeconds} s.`, undefined, rateLimitHeaders(policy, d));
}

/** 429 when refused; otherwise the bucket's RateLimit headers on the answer. */
export function apply(c: Context<AppEnv>, policy: RatePolicy, d: RateDecision) {
  refuse(policy, d);
  for (const [k, v] of Object.entries(rateLimitHeaders(policy, d))) c.header(k, v);
}

/** The bucket of the request's client address for `policy`, or null without one (in-process only, never over a socket). */
function addressBucket(c: Context<AppEnv>, policy: RatePolicy, trustProxyHops: number): string | null {
  const address = clientAddress(peerAddress(c), c.req.header('x-forwarded-for'), trustProxyHops);
  return address === null ? null : `ip:${policy.name}:${addressKey(address)}`;
}

/**
 * Per client address (as client-address.ts works it out: TCP peer, or X-Forwarded-For behind TRUST_PROXY_HOPS
 * proxies; IPv6 by its /64), for the public routes and the password routes. `methods`: only these are counted.
 */
export function limitByAddress(limiter: RateLimiter, policy: RatePolicy, trustProxyHops: number, methods: readonly string[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A HEAD runs the GET handler (Hono answers it with the GET's headers): it is counted as one.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method;
    if (methods.includes(method)) {
      const bucket = addressBucket(c, policy, trustProxyHops);
      if (bucket !== null) apply(c, policy, limiter.take(bucket, policy));
    }
    await next();
  };
}

/** Called before a credential is checked: refuses with 429, or returns what to call once it proved valid. */
export type CredentialGate = (c: Context<AppEnv>) => () => void;

/**
 * Per client address, for credentials that turn out invalid. A bearer token takes a token from its address's
 * bucket BEFORE it is looked up and gives it back once it proves valid, so only invalid ones stay counted; once
 * the bucket is empty the next credential from that address is refused before any lookup. A flood of made-up keys
 * costs at most `burst` reads, then `perSecond` a second, however many of its requests run at once.
 */
export function credentialGate(limiter: RateLimiter, policy: RatePolicy, trustProxyHops: number): CredentialGate {
  return (c) => {
    const bucket = addressBucket(c, policy, trustProxyHops);
    if (bucket === null) return () => {};
    refuse(policy, limiter.take(bucket, policy));
    return () => limiter.give(bucket);
  };
}

export type RateLimitConfig = {
  /** Per platform (all its secret keys and sessions), unless it has its own (platforms.rate_limit_per_second / _burst); per user. */
  perSecond: number;
  burst: number;
  /** Per client address on the public routes and for invalid credentials. */
  publicPerSecond: number;
  publicBurst: number;
  /** Per client address on the password routes (sign-up, sign-in, verify-password, change-password), a minute's worth at once. */
  authPerMinute: number;
};
