/**
 * Money is parsed once, here, into bigint base units. No float ever touches an amount.
 * USDC has 6 decimals; request amounts are "<integer>[.<fraction up to 6>]" (DESIGN §3).
 */
export const USDC_DECIMALS = 6;
const SCALE = 10n ** BigInt(USDC_DECIMALS);
export const AMOUNT_PATTERN = /^[0-9]+(\.[0-9]{1,6})?$/;
export const MAX_AMOUNT_UNITS = 1_000_000_000n * SCALE;

export type ParsedAmount = { ok: true; units: bigint } | { ok: false; reason: string };

export function parseAmount(input: string): ParsedAmount {
  if (!AMOUNT_PATTERN.test(input)) {
    return { ok: false, reason: 'must be a decimal string like "12.50" with at most 6 decimals' };
  }
  if (input.length > 40) return { ok: false, reason: 'is too long' };
  const [whole = '0', frac = ''] = input.split('.');
  const units = BigInt(whole) * SCALE + BigInt(frac.padEnd(USDC_DECIMALS, '0'));
  if (units <= 0n) return { ok: false, reason: 'must be greater than 0' };
  if (units > MAX_AMOUNT_UNITS) return { ok: false, reason: 'must be at most 1000000000' };
  return { ok: true, units };
}

/** Canonical human form: "12.5" → "12.500000"? No: trailing zeros trimmed to at least 2 places ("12.50"). */
export function formatUnits(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / SCALE;
  let frac = (abs % SCALE).toString().padStart(USDC_DECIMALS, '0').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}
