/**
 * The split of one payment (DESIGN §3), in bigint base units. The same five numbers go into the API
 * response, the signed PayOrder and the router's transfers, so they are computed exactly once, here.
 *   service_fee        = ⌊amount · service_bps / 10000⌋
 *   platform_fee       = ⌊amount · platform_bps / 10000⌋
 *   merchant_gross     = amount − service_fee − platform_fee
 *   reserve_hold       = ⌊merchant_gross · reserve_bps / 10000⌋
 *   merchant_available = merchant_gross − reserve_hold
 * Flooring the fees leaves every rounding remainder with the merchant: nobody is charged a unit more
 * than their rate, and the parts always sum to the amount.
 */
export type Split = {
  serviceFee: bigint;
  platformFee: bigint;
  merchantGross: bigint;
  reserveHold: bigint;
  merchantAvailable: bigint;
};

const BPS = 10_000n;

/** What a paid order paid out (and what refunds are bounded by): its amount, or the captured part of an authorization. */
export const paidAmountOf = (o: { capture_method: 'automatic' | 'manual'; amount: bigint; amount_captured: bigint }): bigint =>
  o.capture_method === 'manual' ? o.amount_captured : o.amount;

export function computeSplit(amount: bigint, serviceFeeBps: number, platformFeeBps: number, reserveBps: number): Split {
  if (amount <= 0n) throw new RangeError('amount must be positive');
  for (const bps of [serviceFeeBps, platformFeeBps, reserveBps]) {
    if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) throw new RangeError('basis points must be integers in 0..10000');
  }
  if (serviceFeeBps + platformFeeBps > 10_000) throw new RangeError('fees exceed 100%');
  const serviceFee = (amount * BigInt(serviceFeeBps)) / BPS;
  const platformFee = (amount * BigInt(platformFeeBps)) / BPS;
  const merchantGross = amount - serviceFee - platformFee;
  const reserveHold = (merchantGross * BigInt(reserveBps)) / BPS;
  return { serviceFee, platformFee, merchantGross, reserveHold, merchantAvailable: merchantGross - reserveHold };
}
