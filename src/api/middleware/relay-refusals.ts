import { isIP } from 'node:net';
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
 * answers for what it posts. `by: 'end-client'` (the x402 facilitator endpoints, which a platform's paywall calls
 * for every buyer of its API) counts per platform AND end client: the address in END_CLIENT_HEADER (the SDK
 * paywall sends its client's IP; secret-key callers only, refused 422 when it is not an IP address), else the
 * caller's own; so one abuser behind a paywall empties only its own bucket, not the platform's honest buyers'.
 * A platform's total is bounded too, by `platformPerMinute`. A route can count a refusal it answers 200 (x402's
 * `success: false`, `isValid: false`) with markRefused.
 */
export const END_CLIENT_HEADER = 'trisettle-client-address';

/** Requests whose answer is a refusal though their status is 200 (markRefused). */
const refusedRequests = new WeakSet<Request>();
export const markRefused = (c: Context): void => {
  refusedRequests.add(c.req.raw);
};

export function limitRelayRefusals(opts: {
  perMinute: number; trustProxyHops: number; now?: () => number; maxKeys?: number; by?: 'address' | 'caller' | 'end-client';
  /** With `by: 'end-client'`: the platform's refusals a minute over all its end clients (default 50 × perMinute). */
  platformPerMinute?: number;
  /** The methods counted (default POST; the x402 pay URL is a GET) and, of those, which requests (x402: those that present a payment). */
  methods?: string[]; when?: (c: Context<AppEnv>) => boolean;
}): MiddlewareHandler<AppEnv> {
  const now = opts.now ?? Date.now;
  const maxKeys = opts.maxKeys ?? 100_000;
  const platformPerMinute = opts.platformPerMinute ?? 50 * opts.perMinute;
  /** A bucket's size: the platform-wide one is larger. */
  const sizeOf = (key: string) => (key.startsWith('total:') ? platformPerMinute : opts.perMinute);
  const buckets = new Map<string, Bucket>();
  const refill = (key: string, b: Bucket, t: number) => {
    const size = sizeOf(key);
    b.tokens = Math.min(size, b.tokens + Math.max(0, t - b.at) * (size / 60_000));
    b.at = t;
  };
  const evict = (t: number) => {
    for (const [key, b] of buckets) {
      const size = sizeOf(key);
      if (b.tokens + (t - b.at) * (size / 60_000) >= size) buckets.delete(key);
    }
    for (const key of buckets.keys()) {
      if (buckets.size < maxKeys) break;
      buckets.delete(key);
    }
  };
  return async (c, next) => {
    if (!(opts.methods ?? ['POST']).includes(c.req.method) || (opts.when && !opts.when(c))) return next();
    const keys = bucketKeys(c);
    if (keys.length === 0) return next();
    const t = now();
    for (const key of keys) {
      const seen = buckets.get(key);
      if (!seen) continue;
      refill(key, seen, t);
      if (seen.tokens < 1) {
        const retry = Math.max(1, Math.ceil((1 - seen.tokens) / (sizeOf(key) / 60_000) / 1000));
        throw new AppError('rate_limited', `Too many refused relays from this address: retry in ${retry} s.`, undefined, { 'Retry-After': String(retry) });
      }
    }
    try {
      await next();
    } catch (err) {
      if (err instanceof AppError && err.status >= 400 && err.status < 500) take(keys, t);
      throw err;
    }
    if ((c.res.status >= 400 && c.res.status < 500) || refusedRequests.has(c.req.raw)) take(keys, t);
  };

  function bucketKeys(c: Context<AppEnv>): string[] {
    const principal = opts.by === 'caller' || opts.by === 'end-client' ? c.get('principal') : undefined;
    const platformId = principal && (principal.kind === 'secret' || principal.kind === 'session') ? principal.platformId : null;
    const own = clientAddress(peerAddress(c), c.req.header('x-forwarded-for'), opts.trustProxyHops);
    if (platformId && opts.by === 'end-client') {
      const endClient = principal?.kind === 'secret' ? endClientOf(c) : undefined;
      const address = endClient ?? own;
      return [`total:${platformId}`, ...(address === null ? [] : [`platform:${platformId}:${addressKey(address)}`])];
    }
    if (platformId) return [`platform:${platformId}`];
    return own === null ? [] : [addressKey(own)];
  }

  function take(keys: string[], t: number) {
    for (const key of keys) {
      let b = buckets.get(key);
      if (!b) {
        if (buckets.size >= maxKeys) evict(t);
        b = { tokens: sizeOf(key), at: t };
        buckets.set(key, b);
      }
      b.tokens -= 1;
    }
  }
}

/** The end client a platform's server names (an IP address, as its paywall saw it); anything else is refused. */
function endClientOf(c: Context<AppEnv>): string | undefined {
  const given = c.req.header(END_CLIENT_HEADER);
  if (given === undefined) return undefined;
  const bare = given.trim().replace(/^\[|\]$/g, '');
  if (given.length > 64 || isIP(bare) === 0) throw new AppError('validation_failed', 'Trisettle-Client-Address must be an IP address.', END_CLIENT_HEADER);
  return bare;
}
