/**
 * The public session read is what every buyer's page polls, every couple of seconds, for as long as it is
 * open. This keeps its serialised answer per token for at most `ttlMs` (1 s) and never past the session's
 * own expiry, so most polls are answered without a query.
 *
 * Freshness: a state change made in this process (orders.transition: paid, expired, failed, refunded…)
 * drops that order's entry at once, and for `holdMs` (5 s) after it nothing is stored for that order. The
 * change is made inside a transaction that commits a moment later: a read in between still sees the old
 * state, and without the hold it would be kept for a second after the commit (and a read that started
 * before the change could store its older answer after it). A change made by another instance is seen
 * within `ttlMs`.
 */
export type PublicSessionCache = ReturnType<typeof createPublicSessionCache>;

type Entry = { body: string; orderId: string; until: number };

export function createPublicSessionCache(opts: { ttlMs?: number; holdMs?: number; maxEntries?: number; now?: () => number } = {}) {
  const ttlMs = opts.ttlMs ?? 1_000;
  const holdMs = opts.holdMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 5_000;
  const now = opts.now ?? Date.now;
  const byToken = new Map<string, Entry>();
  const tokenOfOrder = new Map<string, string>();
  /** Order id → until when its answers are not stored. In insertion order, which is also `until` order. */
  const held = new Map<string, number>();

  function releaseHolds(t: number) {
    for (const [id, until] of held) {
      if (until > t) break;
      held.delete(id);
    }
  }

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
      const t = now();
      const until = Math.min(t + ttlMs, expiresAt?.getTime() ?? Infinity);
      releaseHolds(t);
      if (until <= t || held.has(orderId)) return;
      drop(tokenHash);
      // Map keeps insertion order: the oldest entry goes first when full.
      if (byToken.size >= maxEntries) drop(byToken.keys().next().value!);
      byToken.set(tokenHash, { body, orderId, until });
      tokenOfOrder.set(orderId, tokenHash);
    },
    /** This process is changing the order (or its session), in a transaction not yet committed. */
    invalidateOrder(orderId: string) {
      const tokenHash = tokenOfOrder.get(orderId);
      if (tokenHash !== undefined) drop(tokenHash);
      const t = now();
      releaseHolds(t);
      held.delete(orderId); // re-inserted last, keeping the map in `until` order
      held.set(orderId, t + holdMs);
    },
    size: () => byToken.size,
    heldCount: () => held.size,
  };
}
