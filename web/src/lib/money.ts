import { parseUnits } from 'viem';
import { formatBaseUnits, formatDecimal } from './amount.js';

/** USDC has 6 decimals. Money is never a float here: base units are bigint, display is a string. */
export const USDC_DECIMALS = 6;

/** Base-unit integer string (or bigint) → "12.50", "0.0999" (two decimals unless more are needed; lib/amount.ts). */
export function formatBase(base: string | bigint | null | undefined): string {
  return formatBaseUnits(base, USDC_DECIMALS);
}

/** Human decimal string "12.5" → "12.50" without going through a float. */
export function formatHuman(amount: string | null | undefined): string {
  if (!amount) return '—';
  return formatDecimal(amount, USDC_DECIMALS) ?? amount;
}

export function toBase(amount: string): bigint {
  return parseUnits(amount, USDC_DECIMALS);
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
