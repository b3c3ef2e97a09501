import { AMOUNT_RE, formatHuman, toBase } from '../../../lib/money.js';
import type { Order } from '../../../lib/types.js';

export type CapturePreview = {
  amount: bigint;
  serviceFee: bigint;
  platformFee: bigint;
  reserveHold: bigint;
  merchantAvailable: bigint;
  returned: bigint;
};

type Source = Pick<Order, 'amount_authorized' | 'computed_split'>;

/**
 * The split of a capture of `amountText` (empty: all authorized), before it is sent. The order does not
 * expose its frozen rates, so each leg is scaled from the signed split of the whole authorization,
 * ⌊c · leg / authorized⌋ (for the fees, the lower edge of the window the router accepts). The service
 * computes the exact split from the rates (each fee rounded down): each fee at most one base unit above the
 * figure here, the reserve within one, the merchant's part at most three below (test/unit/web-capture.test.ts),
 * and exactly these figures for a capture of everything. Null when the amount is not capturable (the form
 * then says why).
 */
export function capturePreview(order: Source, amountText: string): CapturePreview | null {
  try {
    const authorized = toBase(order.amount_authorized);
    const amount = amountText.trim() ? toBase(amountText.trim()) : authorized;
    if (authorized <= 0n || amount <= 0n || amount > authorized) return null;
    const s = order.computed_split;
    const scale = (leg: string) => (amount * BigInt(leg)) / authorized;
    const serviceFee = scale(s.service_fee);
    const platformFee = scale(s.platform_fee);
    const gross = amount - serviceFee - platformFee;
    const grossA = BigInt(s.merchant_gross);
    const reserveHold = grossA > 0n ? (gross * BigInt(s.reserve_hold)) / grossA : 0n;
    return { amount, serviceFee, platformFee, reserveHold, merchantAvailable: gross - reserveHold, returned: authorized - amount };
  } catch {
    return null;
  }
}

/** The form's own check, in base units: a positive amount of at most six decimals, no more than authorized. */
export function captureAmountError(order: Pick<Order, 'amount_authorized'>, amountText: string): string | null {
  const t = amountText.trim();
  if (!t) return null;
  if (!AMOUNT_RE.test(t)) return 'An amount like 5.00 (up to 6 decimals), or leave empty to capture everything.';
  const amount = toBase(t);
  if (amount <= 0n) return 'Capture more than 0, or void the authorization instead.';
  if (amount > toBase(order.amount_authorized)) return `At most the ${formatHuman(order.amount_authorized)} USDC authorized.`;
  return null;
}
