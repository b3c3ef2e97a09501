import { describe, expect, it } from 'vitest';
import { nextRetryDelayMs, parseRetryAfter, RETRY_AFTER_CAP_MS, RETRY_SCHEDULE_MS } from '../../src/modules/webhooks/schedule.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const mid = () => 0.5; // no jitter

describe('retry schedule', () => {
  it('walks the schedule by attempt number, then gives up (eight attempts)', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((n) => nextRetryDelayMs(n, { random: mid }));
    expect(delays).toEqual([...RETRY_SCHEDULE_MS]);
    expect(new Set(delays).size).toBeGreaterThan(1); // not one delay repeated
    expect(nextRetryDelayMs(8, { random: mid })).toBeNull();
    expect(nextRetryDelayMs(0, { random: mid })).toBeNull();
    // The deliverer applies the documented values: test/api/webhooks-schedule.test.ts.
  });

  it('jitters by at most ±10 %', () => {
    expect(nextRetryDelayMs(2, { random: () => 0 })).toBe(5 * M * 0.9);
    expect(nextRetryDelayMs(2, { random: () => 0.999999 })).toBeCloseTo(5 * M * 1.1, -1);
    for (let i = 0; i < 200; i++) {
      const d = nextRetryDelayMs(4)!;
      expect(d).toBeGreaterThanOrEqual(2 * H * 0.9);
      expect(d).toBeLessThanOrEqual(2 * H * 1.1);
    }
  });

  it('takes an injected schedule (tests run fast)', () => {
    expect(nextRetryDelayMs(1, { scheduleMs: [10, 20], random: mid })).toBe(10);
    expect(nextRetryDelayMs(2, { scheduleMs: [10, 20], random: mid })).toBe(20);
    expect(nextRetryDelayMs(3, { scheduleMs: [10, 20], random: mid })).toBeNull();
  });

  it('honours Retry-After as "not before": longer waits win, shorter ones do not hurry us, huge ones are capped', () => {
    expect(nextRetryDelayMs(1, { random: mid, retryAfterMs: 120 * S })).toBe(120 * S);
    expect(nextRetryDelayMs(2, { random: mid, retryAfterMs: 0 })).toBe(5 * M);
    expect(nextRetryDelayMs(1, { random: mid, retryAfterMs: 30 * 24 * H })).toBe(RETRY_AFTER_CAP_MS);
    expect(nextRetryDelayMs(1, { random: mid, retryAfterMs: 10 * H, retryAfterCapMs: H })).toBe(H);
    expect(nextRetryDelayMs(8, { random: mid, retryAfterMs: 10 * S })).toBeNull(); // never past the last attempt
  });
});

describe('parseRetryAfter', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0); // in the past: no extra wait
  });
  it('ignores anything else', () => {
    for (const v of [undefined, null, '', '-5', '1.5', 'soon', '12abc', 'Mon, 99 Foo 20x6']) expect(parseRetryAfter(v, now), String(v)).toBeNull();
  });
});
