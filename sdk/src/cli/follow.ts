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
/**
 * Pages read per poll at most (100 events each). A scan that needs more (a burst) is resumed by the next polls
 * from where it stopped, and its events are returned once it reaches the window's end, so they stay in order.
 */
export const MAX_PAGES_PER_POLL = 5;

type Scan = { cursor: string | undefined; horizon: number; events: Event[] };

/**
 * Follows a platform's events as they happen, with only the list endpoint: a scan reads pages newest first
 * down to the newest event seen minus OVERLAP_MS, and yields the ones not seen before, oldest first.
 * `start()` marks what already exists as seen, so a session forwards only new events.
 */
export class EventFollower {
  readonly #seen = new Map<string, number>();
  #newest = 0;
  #scan: Scan | null = null;

  constructor(private readonly fetchPage: FetchPage) {}

  /** Marks the events that already exist (the newest, and those within OVERLAP_MS of it) as seen. */
  async start(): Promise<void> {
    let events: Event[] | null = null;
    while (events === null) events = await this.#step();
    for (const e of events) this.#remember(e);
  }

  /** Events not seen before, oldest first; [] while a long scan is still under way. */
  async poll(): Promise<Event[]> {
    const events = await this.#step();
    if (events === null) return [];
    const fresh = events.filter((e) => !this.#seen.has(e.id));
    fresh.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : 1));
    for (const e of fresh) this.#remember(e);
    this.#forget();
    return fresh;
  }

  /** Up to MAX_PAGES_PER_POLL pages of the current scan; the scan's events once it is complete, else null. */
  async #step(): Promise<Event[] | null> {
    const scan = (this.#scan ??= { cursor: undefined, horizon: this.#newest - OVERLAP_MS, events: [] });
    for (let i = 0; i < MAX_PAGES_PER_POLL; i++) {
      const page = await this.fetchPage(scan.cursor);
      // The very first scan has nothing seen yet: its window ends OVERLAP_MS before the newest event there is.
      if (this.#newest === 0 && scan.cursor === undefined && page.data[0]) scan.horizon = Date.parse(page.data[0].created_at) - OVERLAP_MS;
      const inWindow = page.data.filter((e) => Date.parse(e.created_at) >= scan.horizon);
      scan.events.push(...inWindow);
      if (inWindow.length < page.data.length || !page.has_more || !page.next_cursor) {
        this.#scan = null;
        return scan.events;
      }
      scan.cursor = page.next_cursor;
    }
    return null;
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
