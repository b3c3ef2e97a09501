import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeSplit } from '../../src/modules/orders/split.js';

/**
 * The SubscriptionManager's split (SubscriptionManager.split, docs/contracts.md), written as the Solidity does it:
 * serviceFee = amount·sBps/10000, platformFee = amount·pBps/10000, reserveHold = (amount − serviceFee − platformFee)·rBps/10000,
 * integer division (floor) each. The flow test (test/flows/subscriptions.test.ts) asks the deployed manager too.
 */
const contractSplit = (amount: bigint, s: number, p: number, r: number) => {
  const serviceFee = (amount * BigInt(s)) / 10000n;
  const platformFee = (amount * BigInt(p)) / 10000n;
  return { serviceFee, platformFee, reserveHold: ((amount - serviceFee - platformFee) * BigInt(r)) / 10000n };
};

describe('a subscription charge\'s split', () => {
  it('orders/split.ts gives the manager\'s three legs for every amount and rate, and the parts sum to the amount', () => {
    fc.assert(fc.property(
      fc.bigInt({ min: 1n, max: 2n ** 160n - 1n }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }),
      (amount, s, p, r) => {
        fc.pre(s + p <= 10_000);
        const ours = computeSplit(amount, s, p, r);
        expect({ serviceFee: ours.serviceFee, platformFee: ours.platformFee, reserveHold: ours.reserveHold }).toEqual(contractSplit(amount, s, p, r));
        expect(ours.serviceFee + ours.platformFee + ours.reserveHold + ours.merchantAvailable).toBe(amount);
      },
    ), { numRuns: 2000 });
  });
});
