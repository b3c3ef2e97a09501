/**
 * The public session read is what every buyer's page polls, every couple of seconds, for as long as it is
 * open. This keeps its serialised answer per token for at most `ttlMs` (1 s) and never past the session's
 * own expiry, so most polls are answered without a query.
 *
 * Freshness: a state change made in this process (orders.transition: paid, expired, failed, refunded…)
 * drops that order's entry at once. A change made by another instance is seen within `ttlMs`. A change
 * committed while a read was filling the entry is also seen within `ttlMs`: the entry lives no longer.
 */
export type PublicSessionCache = ReturnType<typeof createPublicSessionCache>;

type Entry = { body: string; orderId: string; until: number };

export function createPublicSessionCache(opts: { ttlMs?: number; maxEntries?: number; now?: () => number } = {}) {
  const ttlMs = opts.ttlMs ?? 1_000;
  const maxEntries = opts.maxEntries ?? 5_000;
  const now = opts.now ?? Date.now;
  const byToken = new Map<string, Entry>();
  const tokenOfOrder = new Map<string, string>();

  function drop(tokenHash: string) {
    const e = byToken.get(tokenHash);
    if (!e) return;
    byToken.delete(tokenHash);
    tokenOfOrder.delete(e.orderId);
  }

  return {
    get(tokenHash: string): string | undefined {
      const e = byToken.get(tokenHash);
      if (!e) return undefined;
      if (e.until > now()) return e.body;
      drop(tokenHash);
      return undefined;
    },
    /** `expiresAt`: when the answer changes by itself (an open session is expired on read), or null. */
    set(tokenHash: string, orderId: string, body: string, expiresAt: Date | null) {
      const until = Math.min(now() + ttlMs, expiresAt?.getTime() ?? Infinity);
      if (until <= now()) return;
      drop(tokenHash);
      // Map keeps insertion order: the oldest entry goes first when full.
      if (byToken.size >= maxEntries) drop(byToken.keys().next().value!);
      byToken.set(tokenHash, { body, orderId, until });
      tokenOfOrder.set(orderId, tokenHash);
    },
    /** This process changed the order (or its session): its cached answer is gone. */
    invalidateOrder(orderId: string) {
      const tokenHash = tokenOfOrder.get(orderId);
      if (tokenHash !== undefined) drop(tokenHash);
    },
    size: () => byToken.size,
  };
}
