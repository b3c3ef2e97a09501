import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { allowancePlan, LOW_PERIODS, TOP_UP_PERIODS } from '../../web/src/pages/subscribe/allowance.js';
import { ALLOWANCE_PERIODS } from '../../src/modules/subscriptions/read-authorization.js';

const AMOUNT = 4_200_000n;

describe('manage page: how many charges the allowance covers, and the top-up', () => {
  it('tops up to the service\'s own allowance periods', () => {
    expect(TOP_UP_PERIODS).toBe(BigInt(ALLOWANCE_PERIODS));
  });

  it.each([
    // [allowance, max_periods, charged] → covers, left, target, low
    [AMOUNT * 11n, null, 1, 11n, null, AMOUNT * 12n, false], // open-ended after the first charge: offer 12, not low
    [AMOUNT * 2n + 5n, null, 10, 2n, null, AMOUNT * 12n, true], // two left and a remainder: low
    [AMOUNT * 12n, null, 3, 12n, null, null, false], // already a year: nothing to offer
    [AMOUNT * 5n, 6, 1, 5n, 5n, null, false], // exactly what is left of a 6-period plan
    [AMOUNT, 6, 4, 1n, 2n, AMOUNT * 2n, true], // one covered, two left: allow the two, low
    [0n, 6, 6, 0n, 0n, null, false], // plan over: never ask for more
    [0n, null, 12, 0n, null, AMOUNT * 12n, true], // used up: charges would fail
  ] as const)('allowance %s, max_periods %s, charged %s', (allowance, max, charged, covers, left, target, low) => {
    expect(allowancePlan(AMOUNT, allowance, max, charged)).toEqual({ covers, left, target, low });
  });

  it('never asks for more than 12 charges, nor more than the plan has left, and only when short', () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.option(fc.integer({ min: 1, max: 120 })), fc.integer({ min: 0, max: 120 }),
      (amount, allowance, max, charged) => {
        const p = allowancePlan(amount, allowance, max, charged);
        expect(p.covers * amount <= allowance && allowance < (p.covers + 1n) * amount).toBe(true);
        if (p.target === null) return;
        expect(p.target % amount).toBe(0n);
        expect(p.target / amount <= TOP_UP_PERIODS).toBe(true);
        if (p.left !== null) expect(p.target / amount <= p.left).toBe(true);
        expect(p.covers < p.target / amount).toBe(true);
        if (p.low) expect(p.covers < LOW_PERIODS).toBe(true);
      }));
  });
});
