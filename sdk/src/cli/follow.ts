import type { Event } from '../types.js';

/** One page of `GET /v1/events` (what `trisettle.events.list(...)` resolves to). */
export type EventPage = { data: Event[]; has_more: boolean; next_cursor: string | null };
/** `GET /v1/events?limit=…` (newest first), or with `after` the events after that one, oldest first. */
export type FetchPage = (q: { after?: string; limit: number }) => Promise<EventPage>;

export const PAGE_SIZE = 100;
/** Pages read per poll at most (100 events each); a burst larger than that is read by the next polls, in order. */
export const MAX_PAGES_PER_POLL = 5;
/** Ids remembered against a repeat (a safety net: the feed lists each event once). */
export const SEEN_IDS = 10_000;

/**
 * Follows a platform's events as they happen with `GET /v1/events?after=<the last event read>`: the server lists
 * the events after it, oldest first, in the order their transactions became final, so an event committed late
 * is still listed (after the ones already read) and each is read once; there is no window to re-read. `start()`
 * takes the newest event there is as the starting point, so a session forwards only what comes after it. A
 * platform with no event yet is read newest first until its first events appear (all of them new), and from the
 * newest of those on with `after`.
 */
export class EventFollower {
  readonly #seen = new Set<string>();
  #after: string | undefined;

  constructor(private readonly fetchPage: FetchPage) {}

  /** The starting point: the newest event there is (none: the platform's first events will be the first read). */
  async start(): Promise<void> {
    const page = await this.fetchPage({ limit: 1 });
    this.#after = page.data[0]?.id;
    if (this.#after) this.#remember(this.#after);
  }

  /** Events not read before, oldest first. */
  async poll(): Promise<Event[]> {
    if (this.#after === undefined) return this.#first();
    const out: Event[] = [];
    for (let i = 0; i < MAX_PAGES_PER_POLL; i++) {
      const page = await this.fetchPage({ after: this.#after, limit: PAGE_SIZE });
      out.push(...this.#fresh(page.data));
      if (page.data.length > 0) this.#after = page.data[page.data.length - 1]!.id;
      if (!page.has_more || page.data.length === 0) break;
    }
    return out;
  }

  /** No starting event: the newest-first list, until the platform's first events appear (all new), oldest first. */
  async #first(): Promise<Event[]> {
    const page = await this.fetchPage({ limit: PAGE_SIZE });
    if (page.data.length === 0) return [];
    this.#after = page.data[0]!.id;
    const events = [...page.data].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : 1));
    return this.#fresh(events);
  }

  #fresh(events: Event[]): Event[] {
    const fresh = events.filter((e) => !this.#seen.has(e.id));
    for (const e of fresh) this.#remember(e.id);
    return fresh;
  }

  /** A bounded set: the oldest ids go first (a Set iterates in insertion order). */
  #remember(id: string): void {
    this.#seen.add(id);
    if (this.#seen.size > SEEN_IDS) this.#seen.delete(this.#seen.values().next().value!);
  }
}
