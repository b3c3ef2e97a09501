import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeSplit } from './split.js';

const bps = fc.integer({ min: 0, max: 10_000 });
const amount = fc.bigInt({ min: 1n, max: 1_000_000_000n * 1_000_000n });

describe('computeSplit', () => {
  it('keeps SPEC relations, non-negative parts that sum to the amount, for all amounts and rates', () => {
    fc.assert(
      fc.property(amount, bps, bps, bps, (a, s, p, r) => {
        fc.pre(s + p <= 10_000);
        const x = computeSplit(a, s, p, r);
        expect(x.merchantGross).toBe(a - x.serviceFee - x.platformFee);
        expect(x.merchantAvailable).toBe(x.merchantGross - x.reserveHold);
        expect(x.serviceFee + x.platformFee + x.reserveHold + x.merchantAvailable).toBe(a);
        for (const v of Object.values(x)) expect(v >= 0n).toBe(true);
        // floors: nobody pays more than their rate, and less than one unit under it
        expect(x.serviceFee * 10_000n <= a * BigInt(s)).toBe(true);
        expect((x.serviceFee + 1n) * 10_000n > a * BigInt(s)).toBe(true);
        expect(x.reserveHold * 10_000n <= x.merchantGross * BigInt(r)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('matches a worked example to the unit', () => {
    // 25.00 USDC, 1% service, 5% platform, 10% reserve
    expect(computeSplit(25_000_000n, 100, 500, 1000)).toEqual({
      serviceFee: 250_000n, platformFee: 1_250_000n, merchantGross: 23_500_000n, reserveHold: 2_350_000n, merchantAvailable: 21_150_000n,
    });
    // 1 base unit: every fee floors to zero, the merchant gets the unit
    expect(computeSplit(1n, 100, 500, 1000)).toEqual({ serviceFee: 0n, platformFee: 0n, merchantGross: 1n, reserveHold: 0n, merchantAvailable: 1n });
  });

  it('refuses fees over 100% and bad basis points', () => {
    expect(() => computeSplit(100n, 5000, 5001, 0)).toThrow(RangeError);
    expect(() => computeSplit(100n, -1, 0, 0)).toThrow(RangeError);
    expect(() => computeSplit(100n, 0, 0, 10_001)).toThrow(RangeError);
    expect(() => computeSplit(0n, 0, 0, 0)).toThrow(RangeError);
  });
});
