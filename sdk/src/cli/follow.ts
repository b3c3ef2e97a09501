import type { Event } from '../types.js';

/** One page of `GET /v1/events`, newest first (what `trisettle.events.list(...)` resolves to). */
export type EventPage = { data: Event[]; has_more: boolean; next_cursor: string | null };
export type FetchPage = (cursor: string | undefined) => Promise<EventPage>;

/**
 * How far back each poll looks past the newest event already seen. `GET /v1/events` lists newest first by
 * `created_at`, which is stamped inside the transaction that emits the event: an event can become visible a
 * little after a later-stamped one. Re-reading this window (and remembering the ids seen in it) catches it.
 */
export const OVERLAP_MS = 30_000;
/** Pages read per poll at most (100 events each): a burst larger than this is caught up over the next polls. */
export const MAX_PAGES_PER_POLL = 5;

/**
 * Follows a platform's events as they happen, with only the list endpoint: each poll reads pages newest first
 * until it reaches events older than the newest seen minus OVERLAP_MS, and returns the ones not seen before,
 * oldest first. `start()` marks what already exists as seen, so a session forwards only new events.
 */
export class EventFollower {
  readonly #seen = new Map<string, number>();
  #newest = 0;

  constructor(private readonly fetchPage: FetchPage) {}

  /** Marks the events that already exist (the newest, and those within OVERLAP_MS of it) as seen. */
  async start(): Promise<void> {
    for (const e of await this.#window()) this.#remember(e);
  }

  /** Events not seen before, oldest first. */
  async poll(): Promise<Event[]> {
    const fresh = (await this.#window()).filter((e) => !this.#seen.has(e.id));
    fresh.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : 1));
    for (const e of fresh) this.#remember(e);
    this.#forget();
    return fresh;
  }

  /** Pages newest first down to the newest seen minus OVERLAP_MS (on the first read: the newest there is). */
  async #window(): Promise<Event[]> {
    const events: Event[] = [];
    let horizon = this.#newest - OVERLAP_MS;
    let cursor: string | undefined;
    for (let i = 0; i < MAX_PAGES_PER_POLL; i++) {
      const page = await this.fetchPage(cursor);
      if (this.#newest === 0 && page.data[0]) horizon = Date.parse(page.data[0].created_at) - OVERLAP_MS;
      const inWindow = page.data.filter((e) => Date.parse(e.created_at) >= horizon);
      events.push(...inWindow);
      if (inWindow.length < page.data.length || !page.has_more || !page.next_cursor) break;
      cursor = page.next_cursor;
    }
    return events;
  }

  #remember(e: Event): void {
    const at = Date.parse(e.created_at);
    this.#seen.set(e.id, at);
    if (at > this.#newest) this.#newest = at;
  }

  /** Ids older than the window can never be returned again: drop them so a long session stays small. */
  #forget(): void {
    const horizon = this.#newest - 2 * OVERLAP_MS;
    for (const [id, at] of this.#seen) if (at < horizon) this.#seen.delete(id);
  }
}
