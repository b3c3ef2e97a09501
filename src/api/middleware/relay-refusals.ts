import type { Context, MiddlewareHandler } from 'hono';
import { AppError } from '../../lib/errors.js';
import { addressKey, clientAddress, peerAddress } from '../client-address.js';
import type { AppEnv } from '../context.js';

type Bucket = { tokens: number; at: number };

/**
 * The relay endpoints' refusals, counted per client address in a bucket of their own: `perMinute` refusals at
 * once, refilled at `perMinute` a minute (RATE_LIMIT_RELAY_REFUSALS_PER_MINUTE). Every 4xx answer of a relay
 * endpoint (a bad signature, a wallet that burns gas, a banned payer, …) takes a token AFTER it is answered; an
 * address whose bucket is empty is answered 429 rate_limited with Retry-After BEFORE anything is read, simulated
 * or asked of the node. Accepted relays (202) and the service's own 5xx cost nothing. Per instance, in memory,
 * at most `maxKeys` addresses (full buckets are dropped first, then the oldest). A request without an address
 * (in-process only, never over a socket) is not counted. Addresses count as `addressKey` says (IPv6 by /64).
 * `by: 'caller'` (the secret-key route, mounted after the principal is resolved) counts a platform's refusals
 * under the platform instead: its backend relays for many buyers from one address, and a platform is who
 * answers for what it posts.
 */
export function limitRelayRefusals(opts: {
  perMinute: number; trustProxyHops: number; now?: () => number; maxKeys?: number; by?: 'address' | 'caller';
  /** The methods counted (default POST; the x402 pay URL is a GET) and, of those, which requests (x402: those that present a payment). */
  methods?: string[]; when?: (c: Context<AppEnv>) => boolean;
}): MiddlewareHandler<AppEnv> {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 100_000;
  const perMs = opts.perMinute / 60_000;
  const buckets = new Map<string, Bucket>();
  const refill = (b: Bucket, t: number) => {
    b.tokens = Math.min(opts.perMinute, b.tokens + Math.max(0, t - b.at) * perMs);
    b.at = t;
  };
  const evict = (t: number) => {
    for (const [key, b] of buckets) if (b.tokens + (t - b.at) * perMs >= opts.perMinute) buckets.delete(key);
    for (const key of buckets.keys()) {
      if (buckets.size < maxKeys) break;
      buckets.delete(key);
    }
  };
  return async (c, next) => {
    if (!(opts.methods ?? ['POST']).includes(c.req.method) || (opts.when && !opts.when(c))) return next();
    const address = bucketKey(c);
    if (address === null) return next();
    const t = now();
    const seen = buckets.get(address);
    if (seen) {
      refill(seen, t);
      if (seen.tokens < 1) {
        const retry = Math.max(1, Math.ceil((1 - seen.tokens) / perMs / 1000));
        throw new AppError('rate_limited', `Too many refused relays from this address: retry in ${retry} s.`, undefined, { 'Retry-After': String(retry) });
      }
    }
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && err.status >= 400 && err.status < 500) take(address, t);
      throw err;
    }
    if (c.res.status >= 400 && c.res.status < 500) take(address, t);
  };

  function bucketKey(c: Context<AppEnv>): string | null {
    const principal = opts.by === 'caller' ? c.get('principal') : undefined;
    if (principal && (principal.kind === 'secret' || principal.kind === 'session') && principal.platformId) return `platform:${principal.platformId}`;
    const address = clientAddress(peerAddress(c), c.req.header('x-forwarded-for'), opts.trustProxyHops);
    return address === null ? null : addressKey(address);
  }

  function take(address: string, t: number) {
    let b = buckets.get(address);
    if (!b) {
      if (buckets.size >= maxKeys) evict(t);
      b = { tokens: opts.perMinute, at: t };
      buckets.set(address, b);
    }
    b.tokens -= 1;
  }
}
