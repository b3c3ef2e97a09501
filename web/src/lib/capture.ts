import { toBase } from './money.js';
import type { Order } from './types.js';

/**
 * Charge later (manual capture), as the pages read it: the buyer's payment is an authorization the router
 * holds until the platform captures part or all of it (the rest goes back to the buyer) or voids it. All
 * sums are bigint base units parsed from the API's decimal strings.
 */
type CaptureFields = Pick<Order, 'state' | 'amount' | 'capture_method' | 'amount_authorized' | 'amount_captured'>;

export const isManual = (o: Pick<Order, 'capture_method'>) => o.capture_method === 'manual';

/** The buyer's side of the order is done: authorized (manual) or paid, or what follows either. */
export const PAID_STATES: readonly string[] = ['authorized', 'voided', 'confirmed', 'partially_refunded', 'refunded'];

export type CaptureFigures = { authorized: bigint; captured: bigint; returned: bigint };

/**
 * Authorized vs captured vs returned to the buyer, once the capture or void is final (null before: an
 * authorized order has nothing captured or returned yet, an unpaid one nothing authorized).
 */
export function captureFigures(o: CaptureFields): CaptureFigures | null {
  if (!isManual(o) || !['confirmed', 'partially_refunded', 'refunded', 'voided'].includes(o.state)) return null;
  const authorized = baseOf(o.amount_authorized);
  const captured = o.state === 'voided' ? 0n : baseOf(o.amount_captured);
  return { authorized, captured, returned: authorized > captured ? authorized - captured : 0n };
}

/** What the merchant was actually charged for: the captured amount of a captured manual order, else the amount. */
export function chargedAmount(o: CaptureFields): string {
  return captureFigures(o) && o.state !== 'voided' ? o.amount_captured : o.amount;
}

export const VOID_REASON: Record<NonNullable<Order['void_reason']>, string> = {
  requested: 'Voided from the dashboard or the API before any capture. The whole authorization went back to the buyer.',
  authorization_expired: 'Not captured before the capture deadline. Trisettle returned the whole authorization to the buyer.',
  reclaimed_by_payer: 'Not captured before the capture deadline. The whole authorization was reclaimed from the payment router and went back to the buyer.',
};

function baseOf(human: string | null | undefined): bigint {
  try {
    return human ? toBase(human) : 0n;
  } catch {
    return 0n;
  }
}
