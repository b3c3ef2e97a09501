import { Pool } from 'undici';
import { guardedLookup, type Resolver, type UrlPolicy } from './ssrf.js';

/** Connection pools kept (one per endpoint and origin); the least recently used is closed past this. */
const MAX_POOLS = 1_000;

/**
 * Each endpoint's keep-alive connections (undici Pool, at most perEndpoint sockets): later attempts skip the TCP
 * (and TLS) handshake. Keyed by endpoint and origin, so no socket serves another endpoint or an edited host; every
 * new socket connects through the guarded lookup, so the address connected to is the address checked (ssrf.ts).
 * A literal address never reaches a lookup: send.ts judges it before the request.
 */
export function createAgentPool(perEndpoint: number, timeoutMs: number, policy: UrlPolicy, resolve: Resolver) {
  const pools = new Map<string, Pool>();
  const lookup = guardedLookup(policy, resolve);
  return {
    of(endpointId: string, origin: string): Pool {
      const key = `${endpointId} ${origin}`;
      let pool = pools.get(key);
      if (pool) {
        pools.delete(key); // re-inserted last: the map's order is the order of use
      } else {
        pool = new Pool(origin, {
          connections: perEndpoint,
          pipelining: 1,
          // The deliverer bounds each attempt itself (send.ts); these only keep a stuck socket from outliving it.
          headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
          connect: { lookup: lookup as never, timeout: timeoutMs },
        });
        if (pools.size >= MAX_POOLS) {
          const [oldest, p] = pools.entries().next().value as [string, Pool];
          pools.delete(oldest);
          void p.close().catch(() => undefined); // its attempts in flight finish first
        }
      }
      pools.set(key, pool);
      return pool;
    },
    async destroyAll() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((p) => p.destroy().catch(() => undefined)));
    },
  };
}
