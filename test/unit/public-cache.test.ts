import { describe, expect, it } from 'vitest';
import { createPublicSessionCache } from '../../src/modules/checkout/public-cache.js';

function clocked(opts: { ttlMs?: number; maxLifeMs?: number; holdMs?: number; maxEntries?: number; notified?: boolean } = {}) {
  let t = 1_000_000;
  const cache = createPublicSessionCache({ ...opts, now: () => t });
  if (opts.notified) cache.setNotified(true);
  /** A read as the service does it: ticket first, then the answer. */
  const store = (token: string, orderId: string, body: string, expiresAt: Date | null = null) => cache.set(cache.ticket(), token, orderId, body, expiresAt);
  return { cache, store, tick: (ms: number) => { t += ms; }, at: (ms: number) => new Date(t + ms) };
}

describe('public session cache, not notified (no LISTEN connection)', () => {
  it('answers from memory for ttlMs, then misses', () => {
    const { cache, store, tick } = clocked({ ttlMs: 1_000 });
    store('h1', 'ord_1', '{"a":1}');
    expect(cache.get('h1')).toBe('{"a":1}');
    tick(999);
    expect(cache.get('h1')).toBe('{"a":1}');
    tick(1);
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.size()).toBe(0);
  });

  it('never keeps an answer past the session expiry, and keeps nothing for an expired one', () => {
    const { cache, store, tick, at } = clocked({ ttlMs: 1_000 });
    store('h1', 'ord_1', 'open', at(300));
    tick(299);
    expect(cache.get('h1')).toBe('open');
    tick(1);
    expect(cache.get('h1')).toBeUndefined();
    store('h2', 'ord_2', 'open', at(0));
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.size()).toBe(0);
  });

  it('holds at most maxEntries, evicting the oldest first', () => {
    const { cache, store } = clocked({ maxEntries: 3 });
    for (const i of [1, 2, 3, 4]) store(`h${i}`, `ord_${i}`, `b${i}`);
    expect(cache.size()).toBe(3);
    expect(cache.get('h1')).toBeUndefined();
    expect([cache.get('h2'), cache.get('h3'), cache.get('h4')]).toEqual(['b2', 'b3', 'b4']);
    // An evicted entry's order no longer points at it: invalidating it cannot drop a newer entry.
    cache.changed('ord_1');
    expect(cache.size()).toBe(3);
  });

  it('refilling a token replaces its entry instead of growing', () => {
    const { cache, store } = clocked();
    store('h1', 'ord_1', 'old');
    store('h1', 'ord_1', 'new');
    expect(cache.size()).toBe(1);
    expect(cache.get('h1')).toBe('new');
  });
});

describe('public session cache, notified (LISTEN up)', () => {
  it('keeps an answer until the session expiry, at most maxLifeMs', () => {
    const { cache, store, tick, at } = clocked({ notified: true, ttlMs: 1_000, maxLifeMs: 600_000 });
    store('h1', 'ord_1', 'open', at(120_000));
    store('h2', 'ord_2', 'paid', null);
    tick(119_999);
    expect(cache.get('h1')).toBe('open');
    tick(1);
    expect(cache.get('h1')).toBeUndefined();
    tick(479_999);
    expect(cache.get('h2')).toBe('paid');
    tick(1);
    expect(cache.get('h2')).toBeUndefined();
  });

  it("drops an order's answer on its notification, and only that one; '*' drops everything", () => {
    const { cache, store } = clocked({ notified: true });
    store('h1', 'ord_1', 'one');
    store('h2', 'ord_2', 'two');
    store('h3', 'ord_3', 'three');
    cache.changed('ord_1');
    cache.changed('ord_unknown');
    expect([cache.get('h1'), cache.get('h2'), cache.get('h3')]).toEqual([undefined, 'two', 'three']);
    cache.changed('*'); // a merchant or platform was renamed
    expect(cache.size()).toBe(0);
  });

  it('does not store an answer read before a change whose notification came first', () => {
    const { cache, store } = clocked({ notified: true });
    const ticket = cache.ticket(); // the read's query starts…
    cache.changed('ord_1'); // …another instance's change commits and its notification arrives…
    cache.set(ticket, 'h1', 'ord_1', 'open (read before the change)', null); // …then the old answer comes back
    expect(cache.get('h1')).toBeUndefined();
    // Other orders' answers from the same moment are fine, and a read after the change is stored.
    cache.set(ticket, 'h2', 'ord_2', 'two', null);
    expect(cache.get('h2')).toBe('two');
    store('h1', 'ord_1', 'paid');
    expect(cache.get('h1')).toBe('paid');
  });

  it('stores nothing for an order this process is changing for holdMs (its transaction commits later)', () => {
    const { cache, store, tick } = clocked({ notified: true, holdMs: 5_000 });
    store('h1', 'ord_1', 'open');
    cache.changing('ord_1'); // the transition's UPDATE ran; its transaction has not committed yet
    expect(cache.get('h1')).toBeUndefined();
    store('h1', 'ord_1', 'open (stale)'); // a poll reads the old state before the commit
    expect(cache.get('h1')).toBeUndefined();
    store('h2', 'ord_2', 'two');
    expect(cache.get('h2')).toBe('two');
    tick(4_999);
    store('h1', 'ord_1', 'paid');
    expect(cache.get('h1')).toBeUndefined();
    tick(1);
    store('h1', 'ord_1', 'paid');
    expect(cache.get('h1')).toBe('paid');
  });

  it('going down drops everything, keeps new answers only ttlMs, and refuses reads begun before the drop', () => {
    const { cache, store, tick } = clocked({ notified: true, ttlMs: 1_000 });
    store('h1', 'ord_1', 'one');
    const before = cache.ticket();
    cache.setNotified(false);
    expect(cache.get('h1')).toBeUndefined();
    cache.set(before, 'h1', 'ord_1', 'one (read while notifications were being lost)', null);
    expect(cache.get('h1')).toBeUndefined();
    store('h1', 'ord_1', 'one');
    tick(1_000);
    expect(cache.get('h1')).toBeUndefined();
    // Coming back up drops what was kept meanwhile and refuses reads begun while down.
    store('h1', 'ord_1', 'one');
    const whileDown = cache.ticket();
    cache.setNotified(true);
    expect(cache.size()).toBe(0);
    cache.set(whileDown, 'h1', 'ord_1', 'one', null);
    expect(cache.get('h1')).toBeUndefined();
    store('h1', 'ord_1', 'one');
    tick(60_000);
    expect(cache.get('h1')).toBe('one');
  });

  it('forgets changes after holdMs without ever accepting a read older than what it forgot', () => {
    const { cache, store, tick } = clocked({ notified: true, holdMs: 5_000 });
    const ancient = cache.ticket();
    for (let i = 0; i < 1_000; i++) cache.changed(`ord_many_${i}`);
    expect(cache.trackedChanges()).toBe(1_000);
    tick(5_000);
    cache.changed('ord_last');
    expect(cache.trackedChanges()).toBe(1);
    cache.set(ancient, 'h9', 'ord_many_9', 'stale', null);
    expect(cache.get('h9')).toBeUndefined();
    store('h9', 'ord_many_9', 'fresh');
    expect(cache.get('h9')).toBe('fresh');
  });
});
