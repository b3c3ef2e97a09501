import { formatUnits, parseUnits } from 'viem';

/** USDC has 6 decimals. Money is never a float here: base units are bigint, display is a string. */
export const USDC_DECIMALS = 6;

/** Base-unit integer string (or bigint) → "12.50" (at least two decimals, no trailing zeros beyond). */
export function formatBase(base: string | bigint | null | undefined): string {
  if (base === null || base === undefined || base === '') return '—';
  let value: bigint;
  try {
    value = typeof base === 'bigint' ? base : BigInt(base);
  } catch {
    return '—';
  }
  return padCents(formatUnits(value, USDC_DECIMALS));
}

/** Human decimal string "12.5" → "12.50" without going through a float. */
export function formatHuman(amount: string | null | undefined): string {
  if (!amount) return '—';
  try {
    return padCents(formatUnits(parseUnits(amount, USDC_DECIMALS), USDC_DECIMALS));
  } catch {
    return amount;
  }
}

export function toBase(amount: string): bigint {
  return parseUnits(amount, USDC_DECIMALS);
}

function padCents(s: string): string {
  const negative = s.startsWith('-');
  const abs = negative ? s.slice(1) : s;
  const [int = '0', frac = ''] = abs.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = frac.length >= 2 ? frac : frac.padEnd(2, '0');
  return `${negative ? '-' : ''}${grouped}.${cents}`;
}

export const usd = (s: string) => `${s} USDC`;

/** Basis points → "2.5%" (integers only, no float rounding surprises). */
export function formatBps(bps: number): string {
  const whole = Math.trunc(bps / 100);
  const rest = bps % 100;
  if (rest === 0) return `${whole}%`;
  return `${whole}.${String(rest).padStart(2, '0').replace(/0$/, '')}%`;
}

export const AMOUNT_RE = /^[0-9]+(\.[0-9]{1,6})?$/;
