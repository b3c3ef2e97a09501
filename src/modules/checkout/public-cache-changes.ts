/**
 * The public cache's record of invalidations (public-cache.ts): a sequence number that every invalidation
 * raises, and each order's last invalidation for `holdMs`. A read's answer may be stored only if nothing
 * invalidated its order (or everything) after the read took its ticket, and never while a change made here
 * is held (made in a transaction not yet committed).
 */
export function createChangeLog(holdMs: number) {
  let seq = 0;
  /** Everything invalidated at this number (start, listener up or down, a renamed merchant). */
  let cutoff = 0;
  /**
   * Order id → the number of its last invalidation, when it was, and whether it was a change made here (not
   * yet committed: nothing is stored for that order while the entry lives). Entries live `holdMs`, in
   * insertion order, which is also time order.
   */
  const changes = new Map<string, { seq: number; at: number; held: boolean }>();

  function forget(t: number) {
    for (const [id, c] of changes) {
      if (c.at + holdMs > t) break;
      changes.delete(id);
      // A ticket older than a forgotten change can no longer be checked against it: refuse such tickets.
      cutoff = Math.max(cutoff, c.seq);
    }
  }

  return {
    ticket: (): number => seq,
    /** An order's answer is invalid from now (`held`: changed by this process, not yet committed). */
    order(orderId: string, held: boolean, t: number) {
      forget(t);
      changes.delete(orderId); // re-inserted last, keeping the map in time order
      changes.set(orderId, { seq: ++seq, at: t, held });
    },
    all() {
      cutoff = ++seq;
    },
    /** Whether an answer read under `ticket` may be stored for `orderId` at `t`. */
    admits(ticket: number, orderId: string, t: number): boolean {
      forget(t); // every change still listed is younger than holdMs
      if (ticket < cutoff) return false;
      const change = changes.get(orderId);
      return !(change && (change.held || change.seq > ticket));
    },
    size: () => changes.size,
  };
}
