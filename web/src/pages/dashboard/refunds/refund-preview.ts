import { toBase } from '../../../lib/money.js';
import type { Order, Refund } from '../../../lib/types.js';

const OPEN = ['pending', 'requires_funding'];

export type RefundPreview = { amount: bigint; reserve: bigint; wallet: bigint };

/**
 * What the reserve covers and what a wallet must fund, before submitting: the service's rule (refunds
 * service `create`) on what the page can read: the order's `reserve_remaining` minus the reserve open
 * refunds already hold (a refund being cancelled still holds it until the cancellation is confirmed), the
 * rest from a wallet. An estimate: the service also counts nothing while a settlement batch carries the
 * order, and the created refund carries its own numbers (the router's are final). Null when the amount is
 * not refundable (the form then lets the server say why).
 */
export function refundPreview(order: Pick<Order, 'amount' | 'refunded_amount' | 'reserve_remaining'>, refunds: Pick<Refund, 'state' | 'amount' | 'reserve_portion'>[], amountText: string): RefundPreview | null {
  try {
    const open = refunds.filter((r) => OPEN.includes(r.state));
    const openAmount = open.reduce((a, r) => a + toBase(r.amount), 0n);
    const openReserve = open.reduce((a, r) => a + BigInt(r.reserve_portion ?? '0'), 0n);
    const left = toBase(order.amount) - toBase(order.refunded_amount ?? '0') - openAmount;
    const amount = amountText.trim() ? toBase(amountText.trim()) : left;
    if (amount <= 0n || amount > left) return null;
    const free = BigInt(order.reserve_remaining ?? '0') - openReserve;
    const reserve = free <= 0n ? 0n : amount < free ? amount : free;
    return { amount, reserve, wallet: amount - reserve };
  } catch {
    return null;
  }
}
