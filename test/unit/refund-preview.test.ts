import { describe, expect, it } from 'vitest';
import { refundPreview } from '../../web/src/pages/dashboard/refunds/refund-preview.js';

const order = { amount: '10.00', refunded_amount: '0', reserve_remaining: '965000' };

describe('dashboard refund preview (reserve first, the rest from a wallet)', () => {
  it('a refund within the reserve is covered by it', () => {
    expect(refundPreview(order, [], '0.5')).toEqual({ amount: 500_000n, reserve: 500_000n, wallet: 0n });
  });
  it('empty amount = everything left; the wallet funds what the reserve cannot', () => {
    expect(refundPreview(order, [], '')).toEqual({ amount: 10_000_000n, reserve: 965_000n, wallet: 9_035_000n });
  });
  it('reserve held by open refunds (cancelling ones too) is not offered twice; finished ones no longer count', () => {
    const refunds = [
      { state: 'requires_funding' as const, amount: '2.00', reserve_portion: '900000' },
      { state: 'failed' as const, amount: '1.00', reserve_portion: '65000' },
      { state: 'completed' as const, amount: '1.00', reserve_portion: '0' },
    ];
    expect(refundPreview({ ...order, refunded_amount: '1.00' }, refunds, '')).toEqual({ amount: 7_000_000n, reserve: 65_000n, wallet: 6_935_000n });
  });
  it('nothing to preview for an amount over what is left, zero, or not a number', () => {
    expect(refundPreview(order, [], '10.01')).toBeNull();
    expect(refundPreview(order, [], '0')).toBeNull();
    expect(refundPreview(order, [], 'abc')).toBeNull();
  });
});
