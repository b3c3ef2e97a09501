import type { X402PaymentRequired } from './types.js';

/**
 * Reuse of a PaymentRequired for the same route, price and client key, for a few seconds: bounds how many
 * orders unpaid requests create (one per key per window instead of one per request). Bounded in entries; an
 * entry is dropped once its session is paid, so the next caller gets a fresh order.
 */
export class RequirementsCache {
  readonly #entries = new Map<string, { pr: X402PaymentRequired; until: number; session: unknown }>();
  constructor(private readonly ttlMs: number, private readonly maxEntries: number, private readonly now: () => number = Date.now) {}

  get enabled(): boolean {
    return this.ttlMs > 0 && this.maxEntries > 0;
  }

  get(key: string): X402PaymentRequired | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.until > this.now()) return e.pr;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, pr: X402PaymentRequired): void {
    if (!this.enabled) return;
    this.#entries.delete(key);
    while (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { pr, until: this.now() + this.ttlMs, session: pr.accepts[0]?.extra.trisettle_session });
  }

  /** Drops every entry offering this session (it has been paid). At most maxEntries compared. */
  forgetSession(session: unknown): void {
    for (const [k, e] of this.#entries) if (e.session === session) this.#entries.delete(k);
  }

  get size(): number {
    return this.#entries.size;
  }
}
