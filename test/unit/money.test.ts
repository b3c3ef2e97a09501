import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AmountSchema } from '../../src/lib/schemas.js';
import { formatUnits, MAX_AMOUNT_UNITS, parseAmount } from '../../src/lib/money.js';

const units = (input: string) => {
  const r = parseAmount(input);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(input)} to parse: ${r.reason}`);
  return r.units;
};

describe('parseAmount', () => {
  it.each([
    ['1', 1_000_000n],
    ['0.000001', 1n],
    ['12.5', 12_500_000n],
    ['12.50', 12_500_000n],
    ['0.1', 100_000n],
    ['1.000000', 1_000_000n],
    ['999999999.999999', 999_999_999_999_999n],
    ['1000000000', 1_000_000_000_000_000n],
    ['1000000000.000000', 1_000_000_000_000_000n],
    ['007', 7_000_000n],
    ['007.50', 7_500_000n],
    ['0000000000000000000000000001.5', 1_500_000n],
  ])('%s → %s base units', (input, expected) => {
    expect(units(input)).toBe(expected);
  });

  it.each([
    ['1e3', 'exponent'],
    ['1E3', 'exponent'],
    ['0x10', 'hex'],
    [' 1.0', 'leading space'],
    ['1.0 ', 'trailing space'],
    ['1\n', 'trailing newline'],
    ['1.0000001', 'seven decimals'],
    ['0', 'zero'],
    ['0.0', 'zero with fraction'],
    ['0.000000', 'zero with six decimals'],
    ['-1', 'negative'],
    ['+1', 'plus sign'],
    ['1000000000.000001', 'above the maximum'],
    ['1000000001', 'above the maximum'],
    ['1.', 'dangling point'],
    ['.5', 'no integer part'],
    ['1,5', 'comma'],
    ['1_000', 'separator'],
    ['', 'empty'],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['１', 'non-ASCII digit'],
    ['0'.repeat(41) + '1', 'absurdly long'],
  ])('refuses %j (%s)', (input) => {
    const r = parseAmount(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/\w/);
  });

  it('agrees with the request schema on the shape of an amount', () => {
    for (const good of ['1', '0.000001', '1000000000', '007.50']) expect(AmountSchema.safeParse(good).success).toBe(true);
    for (const bad of ['1e3', '0x10', ' 1.0', '1.0000001', '1.', '-1']) expect(AmountSchema.safeParse(bad).success).toBe(false);
  });

  it('round-trips every valid amount through formatUnits exactly (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_AMOUNT_UNITS }), (u) => {
        expect(units(formatUnits(u))).toBe(u);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('formatUnits', () => {
  it.each([
    [0n, '0.00'],
    [1n, '0.000001'],
    [10n, '0.00001'],
    [100_000n, '0.10'],
    [1_000_000n, '1.00'],
    [12_500_000n, '12.50'],
    [12_345_678n, '12.345678'],
    [1_000_000_000_000_000n, '1000000000.00'],
    [-2_500_000n, '-2.50'],
    [-1n, '-0.000001'],
  ])('%s → %s', (u, text) => {
    expect(formatUnits(u)).toBe(text);
  });

  it('never uses exponent notation, even beyond the request maximum', () => {
    expect(formatUnits(10n ** 30n)).toBe(`1${'0'.repeat(24)}.00`);
  });
});
