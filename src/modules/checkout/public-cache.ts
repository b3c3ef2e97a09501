import { systemClock } from '../../lib/clock.js';
import { createChangeLog } from './public-cache-changes.js';

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
type Options = { ttlMs?: number; maxLifeMs?: number; holdMs?: number; maxEntries?: number; now?: () => number };

export function createPublicSessionCache(opts: Options = {}) {
  const ttlMs = opts.ttlMs ?? 1_000;
  const maxLifeMs = opts.maxLifeMs ?? 10 * 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? systemClock.ms;
  const log = createChangeLog(opts.holdMs ?? 5_000);
  const answers = createAnswers(maxEntries);
  let notified = false;

  function invalidate(orderId: string, held: boolean) {
    answers.dropOrder(orderId);
    log.order(orderId, held, now());
  }
  function invalidateAll() {
    answers.clear();
    log.all();
  }

  return {
    /** Taken before the read's query; handed to `set` with its answer. */
    ticket: log.ticket,
    get: (tokenHash: string): string | undefined => answers.get(tokenHash, now()),
    /** `expiresAt`: when the answer changes by itself (an open session is expired on read), or null. */
    set(ticket: number, tokenHash: string, orderId: string, body: string, expiresAt: Date | null) {
      const t = now();
      if (!log.admits(ticket, orderId, t)) return;
      const until = Math.min(t + (notified ? maxLifeMs : ttlMs), expiresAt?.getTime() ?? Infinity);
      if (until > t) answers.put(tokenHash, { body, orderId, until });
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
    size: answers.size,
    trackedChanges: log.size,
  };
}

/** The stored answers by token hash, and the token of each order (one session per order). */
function createAnswers(maxEntries: number) {
  const byToken = new Map<string, Entry>();
  const tokenOfOrder = new Map<string, string>();
  function drop(tokenHash: string) {
    const e = byToken.get(tokenHash);
    if (!e) return;
    byToken.delete(tokenHash);
    tokenOfOrder.delete(e.orderId);
  }
  return {
    get(tokenHash: string, t: number): string | undefined {
      const e = byToken.get(tokenHash);
      if (!e) return undefined;
      if (e.until > t) return e.body;
      drop(tokenHash);
      return undefined;
    },
    put(tokenHash: string, e: Entry) {
      drop(tokenHash);
      // Map keeps insertion order: the oldest entry goes first when full.
      if (byToken.size >= maxEntries) drop(byToken.keys().next().value!);
      byToken.set(tokenHash, e);
      tokenOfOrder.set(e.orderId, tokenHash);
    },
    dropOrder(orderId: string) {
      const tokenHash = tokenOfOrder.get(orderId);
      if (tokenHash !== undefined) drop(tokenHash);
    },
    clear() {
      byToken.clear();
      tokenOfOrder.clear();
    },
    size: () => byToken.size,
  };
}
