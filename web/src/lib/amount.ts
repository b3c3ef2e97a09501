/**
 * A token amount as people read it, from base units, exactly (bigint arithmetic, never a float): two decimals
 * unless the amount needs more (9.99 → "9.99", 0.0999 → "0.0999", 0.93906 → "0.93906", 10 → "10.00"), the
 * integer part grouped by thousands. Pure: no React, no viem.
 */
export function formatAmount(base: bigint, decimals: number): string {
  const negative = base < 0n;
  const abs = negative ? -base : base;
  const scale = 10n ** BigInt(decimals);
  const whole = (abs / scale).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = decimals > 0 ? (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}.${frac.padEnd(2, '0')}`;
}

/** A base-unit integer string ("9990000") or bigint, or null/garbage → "—" (a row that has no amount yet). */
export function formatBaseUnits(base: string | bigint | null | undefined, decimals: number): string {
  if (base === null || base === undefined || base === '') return '—';
  if (typeof base === 'bigint') return formatAmount(base, decimals);
  if (!/^-?[0-9]+$/.test(base)) return '—';
  return formatAmount(BigInt(base), decimals);
}

/** A decimal string the API returns ("9.99", "10", "0.0999") → the same reading, exactly, or null if it is not one. */
export function formatDecimal(amount: string, decimals: number): string | null {
  const m = /^(-?)([0-9]+)(?:\.([0-9]*))?$/.exec(amount.trim());
  if (!m) return null;
  const [, sign = '', int = '0', frac = ''] = m;
  if (frac.replace(/0+$/, '').length > decimals) return null;
  const base = BigInt(int + frac.padEnd(decimals, '0'));
  return formatAmount(sign ? -base : base, decimals);
}
