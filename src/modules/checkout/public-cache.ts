/**
 * The public session read is what every buyer's page polls, every couple of seconds, for as long as it is
 * open. This keeps its serialised answer per token so that most polls are answered without a query.
 *
 * How long an answer is kept depends on whether this instance hears about changes:
 * - **Notified** (its LISTEN connection is up): until the session's own expiry (an open session is expired
 *   on read), at most `maxLifeMs`. Every change to what the read shows (an order's state or tx_hash, the
 *   session, a merchant or platform name) sends a NOTIFY on commit (migration 008), whichever instance or
 *   worker made it, and `changed()` drops the entry.
 * - **Not notified** (the connection is down or not up yet): `ttlMs` (1 s). Going down or coming up drops
 *   everything: notifications sent while down are lost.
 *
 * Two races are closed with a sequence number. A read takes a `ticket` before it queries; every
 * invalidation takes a higher number; an answer is stored only if nothing invalidated its order (or
 * everything) after the ticket was taken, so an answer read before a change never outlives the change's
 * notification. And a change made in this process drops its order's entry at once and stores nothing for
 * that order for `holdMs` (5 s): the change is made inside a transaction that commits a moment later, and
 * a read in between still sees the old state.
 */
export type PublicSessionCache = ReturnType<typeof createPublicSessionCache>;

/** The NOTIFY channel of migration 008. */
export const PUBLIC_SESSION_CHANNEL = 'trisettle_public_session';

type Entry = { body: string; orderId: string; until: number };

export function createPublicSessionCache(opts: { ttlMs?: number; maxLifeMs?: number; holdMs?: number; maxEntries?: number; now?: () => number } = {}) {
  const ttlMs = opts.ttlMs ?? 1_000;
  const maxLifeMs = opts.maxLifeMs ?? 10 * 60_000;
  const holdMs = opts.holdMs ?? 5_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const byToken = new Map<string, Entry>();
  const tokenOfOrder = new Map<string, string>();
  let notified = false;
  let seq = 0;
  /** Everything invalidated at this number (start, listener up or down, a renamed merchant). */
  let cutoff = 0;
  /**
   * Order id → the number of its last invalidation, when it was, and whether it was a change made here (not
   * yet committed: nothing is stored for that order while the entry lives). Entries live `holdMs`, in
   * insertion order, which is also time order.
   */
  const changes = new Map<string, { seq: number; at: number; held: boolean }>();

  function drop(tokenHash: string) {
    const e = byToken.get(tokenHash);
    if (!e) return;
    byToken.delete(tokenHash);
    tokenOfOrder.delete(e.orderId);
  }

  function forget(t: number) {
    for (const [id, c] of changes) {
      if (c.at + holdMs > t) break;
      changes.delete(id);
      // A ticket older than a forgotten change can no longer be checked against it: refuse such tickets.
      cutoff = Math.max(cutoff, c.seq);
    }
  }

  function invalidate(orderId: string, hold: boolean) {
    const t = now();
    forget(t);
    const tokenHash = tokenOfOrder.get(orderId);
    if (tokenHash !== undefined) drop(tokenHash);
    changes.delete(orderId); // re-inserted last, keeping the map in time order
    changes.set(orderId, { seq: ++seq, at: t, held: hold });
  }

  function invalidateAll() {
    byToken.clear();
    tokenOfOrder.clear();
    cutoff = ++seq;
  }

  return {
    /** Taken before the read's query; handed to `set` with its answer. */
    ticket: (): number => seq,

    get(tokenHash: string): string | undefined {
      const e = byToken.get(tokenHash);
      if (!e) return undefined;
      if (e.until > now()) return e.body;
      drop(tokenHash);
      return undefined;
    },

    /** `expiresAt`: when the answer changes by itself (an open session is expired on read), or null. */
    set(ticket: number, tokenHash: string, orderId: string, body: string, expiresAt: Date | null) {
      const t = now();
      forget(t); // every change still listed is younger than holdMs
      if (ticket < cutoff) return;
      const change = changes.get(orderId);
      if (change && (change.held || change.seq > ticket)) return;
      const until = Math.min(t + (notified ? maxLifeMs : ttlMs), expiresAt?.getTime() ?? Infinity);
      if (until <= t) return;
      drop(tokenHash);
      // Map keeps insertion order: the oldest entry goes first when full.
      if (byToken.size >= maxEntries) drop(byToken.keys().next().value!);
      byToken.set(tokenHash, { body, orderId, until });
      tokenOfOrder.set(orderId, tokenHash);
    },

    /** This process is changing the order (or its session), in a transaction not yet committed. */
    changing: (orderId: string) => invalidate(orderId, true),

    /** A committed change, from NOTIFY: an order id, or '*' for anything. */
    changed(payload: string) {
      if (payload === '*') invalidateAll();
      else invalidate(payload, false);
    },

    /** The LISTEN connection came up or went down: either way, what was kept may have missed a change. */
    setNotified(up: boolean) {
      notified = up;
      invalidateAll();
    },

    isNotified: () => notified,
    size: () => byToken.size,
    trackedChanges: () => changes.size,
  };
}
