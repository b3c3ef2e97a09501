import { describe, expect, it } from 'vitest';
import { createPublicSessionCache } from '../../src/modules/checkout/public-cache.js';


function clocked(opts: { ttlMs?: number; holdMs?: number; maxEntries?: number } = {}) {
  let t = 1_000_000;
  const cache = createPublicSessionCache({ ...opts, now: () => t });
  return { cache, tick: (ms: number) => { t += ms; }, at: (ms: number) => new Date(t + ms) };
}

describe('public session cache', () => {
  it('answers from memory for ttlMs, then misses', () => {
    const { cache, tick } = clocked({ ttlMs: 1_000 });
    cache.set('h1', 'ord_1', '{"a":1}', null);
    expect(cache.get('h1')).toBe('{"a":1}');
    tick(999);
    expect(cache.get('h1')).toBe('{"a":1}');
    tick(1);
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.size()).toBe(0);
  });

  it('never keeps an answer past the session expiry, and keeps nothing for an expired one', () => {
    const { cache, tick, at } = clocked({ ttlMs: 1_000 });
    cache.set('h1', 'ord_1', 'open', at(300));
    tick(299);
    expect(cache.get('h1')).toBe('open');
    tick(1);
    expect(cache.get('h1')).toBeUndefined();
    cache.set('h2', 'ord_2', 'open', at(0));
    expect(cache.get('h2')).toBeUndefined();
    expect(cache.size()).toBe(0);
  });

  it("drops an order's answer when this process changes the order, and only that one", () => {
    const { cache } = clocked();
    cache.set('h1', 'ord_1', 'one', null);
    cache.set('h2', 'ord_2', 'two', null);
    cache.invalidateOrder('ord_1');
    cache.invalidateOrder('ord_unknown');
    expect(cache.get('h1')).toBeUndefined();
    expect(cache.get('h2')).toBe('two');
  });

  it('holds at most maxEntries, evicting the oldest first', () => {
    const { cache } = clocked({ maxEntries: 3 });
    for (const i of [1, 2, 3, 4]) cache.set(`h${i}`, `ord_${i}`, `b${i}`, null);
    expect(cache.size()).toBe(3);
    expect(cache.get('h1')).toBeUndefined();
    expect([cache.get('h2'), cache.get('h3'), cache.get('h4')]).toEqual(['b2', 'b3', 'b4']);
    // An evicted entry's order no longer points at it: invalidating it cannot drop a newer entry.
    cache.invalidateOrder('ord_1');
    expect(cache.size()).toBe(3);
  });

  it('refilling a token replaces its entry instead of growing', () => {
    const { cache } = clocked();
    cache.set('h1', 'ord_1', 'old', null);
    cache.set('h1', 'ord_1', 'new', null);
    expect(cache.size()).toBe(1);
    expect(cache.get('h1')).toBe('new');
  });
});

describe('public session cache around an uncommitted change', () => {
  it('stores nothing for a changed order for holdMs: a read between the change and its commit is not kept', () => {
    const { cache, tick } = clocked({ ttlMs: 1_000, holdMs: 5_000 });
    cache.set('h1', 'ord_1', 'open', null);
    cache.invalidateOrder('ord_1'); // the transition's UPDATE ran; its transaction has not committed yet
    // A poll arrives before the commit and reads the old state from the database.
    cache.set('h1', 'ord_1', 'open (stale)', null);
    expect(cache.get('h1')).toBeUndefined();
    // Other orders are cached as usual meanwhile.
    cache.set('h2', 'ord_2', 'two', null);
    expect(cache.get('h2')).toBe('two');
    tick(4_999);
    cache.set('h1', 'ord_1', 'paid', null);
    expect(cache.get('h1')).toBeUndefined();
    tick(1);
    cache.set('h1', 'ord_1', 'paid', null);
    expect(cache.get('h1')).toBe('paid');
  });

  it('a second change restarts the hold, and released holds do not accumulate', () => {
    const { cache, tick } = clocked({ holdMs: 5_000 });
    cache.invalidateOrder('ord_1');
    tick(3_000);
    cache.invalidateOrder('ord_1');
    tick(3_000);
    cache.set('h1', 'ord_1', 'x', null);
    expect(cache.get('h1')).toBeUndefined();
    for (let i = 0; i < 1_000; i++) cache.invalidateOrder(`ord_many_${i}`);
    expect(cache.heldCount()).toBe(1_001);
    tick(5_000);
    cache.invalidateOrder('ord_last');
    expect(cache.heldCount()).toBe(1);
    cache.set('h1', 'ord_1', 'y', null);
    expect(cache.get('h1')).toBe('y');
  });
});
