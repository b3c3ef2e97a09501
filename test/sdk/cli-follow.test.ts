import { describe, expect, it } from 'vitest';
import { TrisettleError, type Event } from '@trisettle/sdk';
import { parseEventFilter } from '../../sdk/src/cli/filter.js';
import { EventFollower, MAX_PAGES_PER_POLL, OVERLAP_MS, type EventPage } from '../../sdk/src/cli/follow.js';
import { backoff, MAX_BACKOFF_MS } from '../../sdk/src/cli/listen.js';

const T0 = Date.parse('2026-11-27T12:00:00Z');
const ev = (n: number, atMs: number, type = 'order.confirmed'): Event =>
  ({ id: `evt_${n}`, object: 'event', type, created_at: new Date(T0 + atMs).toISOString(), data: { object: {} } }) as unknown as Event;

/** GET /v1/events over an in-memory list: newest first by (created_at, id), pages of `size`, keyset cursor (the last id). */
function fakeList(events: Event[], size = 2) {
  const calls: (string | undefined)[] = [];
  const fetchPage = async (cursor: string | undefined): Promise<EventPage> => {
    calls.push(cursor);
    const sorted = [...events].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
    const from = cursor ? sorted.findIndex((e) => e.id === cursor) + 1 : 0;
    const data = sorted.slice(from, from + size);
    const more = from + size < sorted.length;
    return { data, has_more: more, next_cursor: more ? data[data.length - 1]!.id : null };
  };
  return { fetchPage, calls };
}

describe('EventFollower (listen: following GET /v1/events, newest first, with only its cursor)', () => {
  it('forwards only events that appear after start, oldest first, each once', async () => {
    const events = [ev(1, 0), ev(2, 1_000), ev(3, 2_000)];
    const { fetchPage } = fakeList(events);
    const f = new EventFollower(fetchPage);
    await f.start();
    expect(await f.poll()).toEqual([]);
    events.push(ev(4, 3_000), ev(5, 4_000), ev(6, 5_000));
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_4', 'evt_5', 'evt_6']);
    expect(await f.poll()).toEqual([]);
  });

  it('still forwards an event that becomes visible after a later-stamped one, within the overlap window', async () => {
    const events = [ev(1, 0), ev(3, 10_000)];
    const f = new EventFollower(fakeList(events).fetchPage);
    await f.start();
    events.push(ev(2, 10_000 - OVERLAP_MS + 1_000)); // committed late: stamped before evt_3, listed behind it
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_2']);
  });

  it('stops paging at the window, reads at most MAX_PAGES_PER_POLL pages per poll and resumes a long scan, in order', async () => {
    const events = [ev(0, 0)];
    const { fetchPage, calls } = fakeList(events, 2);
    const f = new EventFollower(fetchPage);
    await f.start();
    calls.length = 0;
    expect(await f.poll()).toEqual([]);
    expect(calls).toEqual([undefined]); // one page: nothing new
    const n = 2 * MAX_PAGES_PER_POLL + 3;
    const burst = Array.from({ length: n }, (_, i) => ev(100 + i, 1_000 + i * OVERLAP_MS)); // spaced: the next scan's window holds few of them
    events.push(...burst);
    calls.length = 0;
    expect(await f.poll()).toEqual([]); // the scan is not finished: nothing out of order
    expect(calls).toHaveLength(MAX_PAGES_PER_POLL);
    events.push(ev(200, 1_000 + n * OVERLAP_MS)); // arrives during the scan: the next scan's
    expect((await f.poll()).map((e) => e.id)).toEqual(burst.map((e) => e.id));
    expect((await f.poll()).map((e) => e.id)).toEqual(['evt_200']);
    expect(await f.poll()).toEqual([]);
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
