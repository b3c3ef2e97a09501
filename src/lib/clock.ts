/**
 * Wall-clock time, injected. Modules take a `Clock` instead of calling `Date.now()`/`new Date()` so tests can move
 * time instead of sleeping. This is the service's own clock (leases, retry schedules, key expiry, timestamps it
 * stamps); where money depends on time the chain's clock decides (modules/chains `clock`, the indexed cursor time).
 */
export type Clock = {
  /** The current time as a Date. */
  now(): Date;
  /** The current time in milliseconds since the epoch. */
  ms(): number;
};

export const systemClock: Clock = { now: () => new Date(), ms: () => Date.now() };

export type ManualClock = Clock & { advance(ms: number): void; set(at: Date | number): void };

/** A clock that only moves when told to (tests). */
export function manualClock(start: Date | number = Date.now()): ManualClock {
  let t = typeof start === 'number' ? start : start.getTime();
  return {
    now: () => new Date(t),
    ms: () => t,
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('a clock only moves forward');
      t += ms;
    },
    set(at) {
      t = typeof at === 'number' ? at : at.getTime();
    },
  };
}
