import { describe, expect, it } from 'vitest';
import { computeSplit } from '../../src/modules/orders/split.js';
import { captureFigures, chargedAmount } from '../../web/src/lib/capture.js';
import { captureAmountError, capturePreview } from '../../web/src/pages/dashboard/orders/capture-preview.js';

/** An authorization of 10.00 USDC at 1% service, 2.5% platform, 10% reserve: the split the order signed. */
const full = computeSplit(10_000_000n, 100, 250, 1000);
const order = {
  amount_authorized: '10.00',
  computed_split: {
    service_fee: String(full.serviceFee), platform_fee: String(full.platformFee), merchant_gross: String(full.merchantGross),
    reserve_hold: String(full.reserveHold), merchant_available: String(full.merchantAvailable),
  },
};

describe('dashboard capture preview (charge later)', () => {
  it('capturing everything (empty or the whole amount) previews exactly the signed split, nothing back to the buyer', () => {
    const expected = { amount: 10_000_000n, serviceFee: full.serviceFee, platformFee: full.platformFee, reserveHold: full.reserveHold, merchantAvailable: full.merchantAvailable, returned: 0n };
    expect(capturePreview(order, '')).toEqual(expected);
    expect(capturePreview(order, '10')).toEqual(expected);
  });

  it('a partial capture is at most 0.000003 USDC off the rates split the service computes, and its parts sum to the capture', () => {
    let seed = 27;
    const rnd = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n;
    for (let i = 0; i < 5000; i++) {
      const [a, s, pl, r] = [1 + rnd(100_000_000), rnd(1000), rnd(2000), rnd(5000)];
      const f = computeSplit(BigInt(a), s, pl, r);
      const o = { amount_authorized: (a / 1e6).toFixed(6), computed_split: { service_fee: String(f.serviceFee), platform_fee: String(f.platformFee), merchant_gross: String(f.merchantGross), reserve_hold: String(f.reserveHold), merchant_available: String(f.merchantAvailable) } };
      const c = 1 + rnd(a);
      const p = capturePreview(o, (c / 1e6).toFixed(6))!;
      const exact = computeSplit(BigInt(c), s, pl, r);
      // The fees: the router's lower edge, the exact one at most a unit above; the reserve ±1; the merchant's part absorbs the rest.
      expect([exact.serviceFee - p.serviceFee, exact.platformFee - p.platformFee].every((d) => d === 0n || d === 1n)).toBe(true);
      expect([-1n, 0n, 1n]).toContain(exact.reserveHold - p.reserveHold);
      expect(p.merchantAvailable - exact.merchantAvailable).toBeGreaterThanOrEqual(0n);
      expect(p.merchantAvailable - exact.merchantAvailable).toBeLessThanOrEqual(3n);
      expect(p.serviceFee + p.platformFee + p.reserveHold + p.merchantAvailable).toBe(BigInt(c));
      expect(p.returned).toBe(BigInt(a - c));
    }
  });

  it('no preview, and a clear message, for zero, more than authorized, or not an amount', () => {
    expect(capturePreview(order, '0')).toBeNull();
    expect(capturePreview(order, '10.000001')).toBeNull();
    expect(capturePreview(order, 'abc')).toBeNull();
    expect(captureAmountError(order, '10.000001')).toBe('At most the 10.00 USDC authorized.');
    expect(captureAmountError(order, '0.00')).toMatch(/more than 0/);
    expect(captureAmountError(order, '1.0000001')).toMatch(/up to 6 decimals/);
    expect(captureAmountError(order, '1,5')).toMatch(/up to 6 decimals/);
    expect(captureAmountError(order, '')).toBeNull();
    expect(captureAmountError(order, '10')).toBeNull();
  });
});

describe('authorized vs captured vs returned', () => {
  const base = { capture_method: 'manual' as const, amount: '10.00', amount_authorized: '10.00', amount_captured: '6.00' };
  it('a captured order: what was captured, the rest returned, and the captured amount is what was charged', () => {
    expect(captureFigures({ ...base, state: 'confirmed' })).toEqual({ authorized: 10_000_000n, captured: 6_000_000n, returned: 4_000_000n });
    expect(chargedAmount({ ...base, state: 'partially_refunded' })).toBe('6.00');
  });
  it('a voided order returned everything; an authorized or automatic one has no figures yet', () => {
    expect(captureFigures({ ...base, amount_captured: '0', state: 'voided' })).toEqual({ authorized: 10_000_000n, captured: 0n, returned: 10_000_000n });
    expect(chargedAmount({ ...base, state: 'voided' })).toBe('10.00');
    expect(captureFigures({ ...base, state: 'authorized' })).toBeNull();
    expect(captureFigures({ ...base, capture_method: 'automatic', state: 'confirmed' })).toBeNull();
    expect(chargedAmount({ ...base, capture_method: 'automatic', state: 'confirmed' })).toBe('10.00');
  });
});
