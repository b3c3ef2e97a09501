import { describe, expect, it } from 'vitest';
import { manualClock, systemClock } from '../../src/lib/clock.js';

describe('clock', () => {
  it('a manual clock stands still until moved, and only moves forward', () => {
    const clock = manualClock(new Date('2026-01-01T00:00:00Z'));
    expect(clock.ms()).toBe(Date.parse('2026-01-01T00:00:00Z'));
    clock.advance(1500);
    expect(clock.now().toISOString()).toBe('2026-01-01T00:00:01.500Z');
    expect(() => clock.advance(-1)).toThrow(RangeError);
    clock.set(0);
    expect(clock.ms()).toBe(0);
  });

  it('the system clock reads the wall clock', () => {
    const before = Date.now();
    const t = systemClock.ms();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(Math.abs(systemClock.now().getTime() - Date.now())).toBeLessThan(1000);
  });
});
