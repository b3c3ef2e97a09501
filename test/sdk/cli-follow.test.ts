import { describe, expect, it } from 'vitest';
import { TrisettleError, type Event } from '@trisettle/sdk';
import { parseEventFilter } from '../../sdk/src/cli/filter.js';
import { EventFollower, MAX_PAGES_PER_POLL, PAGE_SIZE, type EventPage } from '../../sdk/src/cli/follow.js';
import { backoff, MAX_BACKOFF_MS } from '../../sdk/src/cli/listen.js';

const T0 = Date.parse('2026-11-27T12:00:00Z');
const ev = (n: number, atMs: number, type = 'order.confirmed'): Event =>
  ({ id: `evt_${n}`, object: 'event', type, created_at: new Date(T0 + atMs).toISOString(), data: { object: {} } }) as unknown as Event;

/**
 * GET /v1/events over an in-memory feed. `feed` is in the order events became final (the server's `after` order,
 * which created_at need not follow); without `after` the list is newest first by (created_at, id).
 */
function fakeFeed(feed: Event[]) {
  const calls: { after?: string; limit: number }[] = [];
  const fetchPage = async (q: { after?: string; limit: number }): Promise<EventPage> => {
    calls.push(q);
    if (q.after === undefined) {
      const sorted = [...feed].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
      return { data: sorted.slice(0, q.limit), has_more: sorted.length > q.limit, next_cursor: null };
    }
    const from = feed.findIndex((e) => e.id === q.after) + 1;
    if (from === 0) throw new Error(`404: ${q.after}`);
    const data = feed.slice(from, from + q.limit);
    return { data, has_more: from + q.limit < feed.length, next_cursor: null };
  };
  return { fetchPage, calls };
}

describe('EventFollower (listen: GET /v1/events?after=<last read>, oldest first)', () => {
  it('forwards only events that appear after start, oldest first, each once, reading after the last one (no overlap)', async () => {
    const feed = [ev(1, 0), ev(2, 1_000), ev(3, 2_000)];
    const { fetchPage, calls } = fakeFeed(feed);
    const f = new EventFollower(fetchPage);
    await f.start();
    expect(calls).toEqual([{ limit: 1 }]);
    expect(await f.poll()).toEqual([]);
    feed.push(ev(4, 3_000), ev(5, 4_000), ev(6, 5_000));
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_4', 'evt_5', 'evt_6']);
    expect(await f.poll()).toEqual([]);
    expect(calls.slice(1)).toEqual([{ after: 'evt_3', limit: PAGE_SIZE }, { after: 'evt_3', limit: PAGE_SIZE }, { after: 'evt_6', limit: PAGE_SIZE }]);
  });

  it('forwards an event committed late (stamped before one already forwarded): the feed lists it after, whatever its stamp', async () => {
    const feed = [ev(1, 0), ev(3, 10_000)];
    const f = new EventFollower(fakeFeed(feed).fetchPage);
    await f.start();
    feed.push(ev(2, -3_600_000)); // stamped an hour before evt_3, final after it
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_2']);
  });

  it('reads at most MAX_PAGES_PER_POLL pages per poll and the rest of a burst on the next, in order', async () => {
    const feed = [ev(0, 0)];
    const { fetchPage, calls } = fakeFeed(feed);
    const f = new EventFollower(fetchPage);
    await f.start();
    const n = PAGE_SIZE * MAX_PAGES_PER_POLL + 150;
    const burst = Array.from({ length: n }, (_, i) => ev(100 + i, 1_000 + i));
    feed.push(...burst);
    calls.length = 0;
    const first = await f.poll();
    expect(calls).toHaveLength(MAX_PAGES_PER_POLL);
    expect(first.map((e) => e.id)).toEqual(burst.slice(0, PAGE_SIZE * MAX_PAGES_PER_POLL).map((e) => e.id));
    expect((await f.poll()).map((e) => e.id)).toEqual(burst.slice(PAGE_SIZE * MAX_PAGES_PER_POLL).map((e) => e.id));
    expect(await f.poll()).toEqual([]);
  });

  it('on a platform without events, forwards its first events (oldest first), then follows the newest of them', async () => {
    const feed: Event[] = [];
    const { fetchPage, calls } = fakeFeed(feed);
    const f = new EventFollower(fetchPage);
    await f.start();
    expect(await f.poll()).toEqual([]);
    feed.push(ev(1, 0), ev(2, 1_000));
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_1', 'evt_2']);
    feed.push(ev(3, 2_000));
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_3']);
    expect(calls.at(-1)).toEqual({ after: 'evt_2', limit: PAGE_SIZE });
  });

  it('never forwards an id twice, even if the server repeated one (the de-dup safety net)', async () => {
    const feed = [ev(1, 0)];
    const f = new EventFollower(fakeFeed(feed).fetchPage);
    await f.start();
    feed.push(ev(2, 1_000));
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_2']);
    feed.push(ev(2, 1_000), ev(3, 2_000)); // a repeat of evt_2
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_3']);
  });
});

describe('--events', () => {
  it('matches exact types and families, everything when absent', () => {
    const f = parseEventFilter('order.confirmed,refund.*');
    expect(['order.confirmed', 'refund.completed', 'refund.failed'].every(f)).toBe(true);
    expect(['order.failed', 'merchant.created', 'refundx.y'].some(f)).toBe(false);
    expect(parseEventFilter(undefined)('anything')).toBe(true);
    expect(parseEventFilter('*')('merchant.created')).toBe(true);
  });

  it('refuses a malformed pattern', () => {
    expect(() => parseEventFilter('order.*.x')).toThrow(/not an event type/);
    expect(() => parseEventFilter('ORDER')).toThrow(/not an event type/);
  });
});

describe('backoff after a 429, a 5xx or no answer', () => {
  const err = (status: number, retryAfter?: string) =>
    new TrisettleError({ message: 'x', status, type: 't', code: 'c', headers: new Headers(retryAfter ? { 'retry-after': retryAfter } : {}) });

  it('doubles from the interval up to the ceiling, and honours a longer Retry-After', () => {
    expect(backoff(err(503), 1_000, 1_000)).toBe(2_000);
    expect(backoff(err(503), 2_000, 1_000)).toBe(4_000);
    expect(backoff(err(503), 20_000, 1_000)).toBe(MAX_BACKOFF_MS);
    expect(backoff(err(429, '7'), 1_000, 1_000)).toBe(7_000);
    expect(backoff(err(429, '3600'), 1_000, 1_000)).toBe(MAX_BACKOFF_MS);
  });
});
