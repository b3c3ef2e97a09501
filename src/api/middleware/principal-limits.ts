import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { apply, type RateLimitConfig, type RateLimiter, type RatePolicy } from './rate-limit.js';

type PlatformPolicy = (platformId: string) => RatePolicy | Promise<RatePolicy>;

/**
 * Every principal has a bucket, taken after resolvePrincipal and before idempotency or the route:
 * - `plt:<platform>`: all the platform's secret keys and its users' sessions together (a platform with more keys
 *   or more users gets no more rate), at the platform's policy;
 * - `usr:<user>`: each dashboard user's sessions (also a user with no platform yet), at the default policy;
 * - `pk:<platform>`: all the platform's publishable keys, at the platform's policy but apart from `plt:`, since a
 *   publishable key is public (it ships in web pages) and must not let anyone use up the platform's own rate.
 * A session takes from its user's bucket, then its platform's; the answer carries the last bucket's headers.
 * Admin requests (`/_/*`) are operators' and are not limited; invalid credentials are, per address (credentialGate).
 */
export function limitPrincipals(limiter: RateLimiter, platformPolicy: PlatformPolicy, user: RatePolicy): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const p = c.get('principal');
    const platformId = 'platformId' in p ? p.platformId : null;
    const takes: [string, RatePolicy][] = [];
    if (p.kind === 'session') takes.push([`usr:${p.userId}`, user]);
    if (platformId !== null) {
      const found = platformPolicy(platformId);
      const policy = found instanceof Promise ? await found : found;
      takes.push(p.kind === 'publishable' ? [`pk:${platformId}`, { ...policy, name: 'publishable-key' }] : [`plt:${platformId}`, policy]);
    }
    for (const [key, policy] of takes) apply(c, policy, limiter.take(key, policy));
    await next();
  };
}

const POLICY_TTL_MS = 60_000;

/**
 * A platform's policy (platforms.rate_limit_per_second / rate_limit_burst, or the configured default), cached for a
 * minute per instance: a change to the platform's columns takes effect within a minute, and the hot path reads no row.
 */
export function platformPolicies(
  read: (platformId: string) => Promise<{ rate_limit_per_second: number | null; rate_limit_burst: number | null } | undefined>,
  defaults: Pick<RateLimitConfig, 'perSecond' | 'burst'>,
  now: () => number = Date.now,
): PlatformPolicy {
  const cache = new Map<string, { policy: RatePolicy; until: number }>();
  const fallback: RatePolicy = { name: 'platform', perSecond: defaults.perSecond, burst: defaults.burst };
  return (platformId) => {
    const hit = cache.get(platformId);
    if (hit && hit.until > now()) return hit.policy;
    return read(platformId).then((row) => {
      const perSecond = row?.rate_limit_per_second ?? defaults.perSecond;
      const burst = row?.rate_limit_burst ?? Math.max(row?.rate_limit_per_second ? perSecond * 2 : defaults.burst, 1);
      const policy = perSecond === fallback.perSecond && burst === fallback.burst ? fallback : { name: 'platform', perSecond, burst };
      if (cache.size > 10_000) cache.clear();
      cache.set(platformId, { policy, until: now() + POLICY_TTL_MS });
      return policy;
    });
  };
}
