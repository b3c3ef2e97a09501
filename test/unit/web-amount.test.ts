import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatAmount, formatBaseUnits, formatDecimal } from '../../web/src/lib/amount.js';

describe('formatAmount: two decimals unless more are needed, exact from base units', () => {
  it.each([
    [9_990_000n, '9.99'],
    [99_900n, '0.0999'],
    [939_060n, '0.93906'],
    [10_000_000n, '10.00'],
    [0n, '0.00'],
    [1n, '0.000001'],
    [499_500n, '0.4995'],
    [1_234_567_890_000n, '1,234,567.89'],
    [-2_500_000n, '-2.50'],
  ])('%s base units of a 6-decimal token read %s', (base, text) => {
    expect(formatAmount(base, 6)).toBe(text);
  });

  it('keeps every significant digit of an 18-decimal amount a float would round', () => {
    expect(formatAmount(123_456_789_012_345_678_901n, 18)).toBe('123.456789012345678901');
    expect(formatAmount(10n ** 18n + 1n, 18)).toBe('1.000000000000000001');
  });

  it('reads back to the same base units (no digit lost or invented)', () => {
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (base) => {
      const text = formatAmount(base, 6).replace(/,/g, '');
      const [int, frac = ''] = text.split('.');
      expect(BigInt(int! + frac.padEnd(6, '0'))).toBe(base);
      expect(frac.length).toBeGreaterThanOrEqual(2);
      if (frac.length > 2) expect(frac.endsWith('0')).toBe(false);
    }));
  });
});

describe('formatBaseUnits and formatDecimal: what the API sends', () => {
  it('formats base-unit strings and shows a dash for nothing or garbage', () => {
    expect(formatBaseUnits('9990000', 6)).toBe('9.99');
    expect(formatBaseUnits(null, 6)).toBe('—');
    expect(formatBaseUnits('', 6)).toBe('—');
    expect(formatBaseUnits('1e6', 6)).toBe('—');
  });

  it('formats decimal strings exactly and refuses more precision than the token has', () => {
    expect(formatDecimal('9.99', 6)).toBe('9.99');
    expect(formatDecimal('10', 6)).toBe('10.00');
    expect(formatDecimal('0.093906', 6)).toBe('0.093906');
    expect(formatDecimal('12.500000', 6)).toBe('12.50');
    expect(formatDecimal('0.0000001', 6)).toBeNull();
    expect(formatDecimal('abc', 6)).toBeNull();
  });
});
