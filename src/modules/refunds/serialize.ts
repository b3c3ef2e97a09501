import { formatUnits } from '../../lib/money.js';
import type { OrderRow } from '../orders/repo.js';
import type { RefundRow } from './repo.js';

/**
 * `amount` is in human units like an order's amount. `reserve_portion` and `funding_required` are base-unit
 * integer strings like `computed_split`: they are what a wallet passes to `approve` and what the router
 * moves, so they must not be rounded or reformatted. Until completion they are the service's estimate at
 * creation; once completed they are what the router actually took from the reserve and from the submitter.
 */
export function serializeRefund(r: RefundRow) {
  return {
    id: r.id,
    object: 'refund' as const,
    order_id: r.order_id,
    amount: formatUnits(r.amount),
    state: r.state,
    reason: r.reason,
    metadata: r.metadata,
    reserve_portion: r.reserve_portion.toString(),
    funding_required: r.funding_required.toString(),
    funded_by: r.funded_by ?? null,
    to: r.to_address,
    pay_to: r.pay_to,
    eip712: r.eip712 as {
      domain: { name: string; version: string; chainId: number; verifyingContract: string };
      primary_type: string;
      types: Record<string, { name: string; type: string }[]>;
      message: Record<string, unknown>;
    },
    signature: r.signature,
    deadline_at: r.deadline_at.toISOString(),
    tx_hash: r.tx_hash,
    failure_reason: r.failure_reason,
    created_at: r.created_at.toISOString(),
    completed_at: r.completed_at?.toISOString() ?? null,
    attempts: r.attempts,
    cancellation: cancellationOf(r),
  };
}

/** pending: cancelRefund asked, not yet indexed; cancelled: RefundCancelled indexed; too_late: the refund executed first. */
function cancellationOf(r: RefundRow): 'pending' | 'cancelled' | 'too_late' | null {
  if (!r.cancel_requested_at) return null;
  if (r.state === 'failed') return 'cancelled';
  return r.state === 'completed' ? 'too_late' : 'pending';
}
export type SerializedRefund = ReturnType<typeof serializeRefund>;

/** Webhook payload of refund.* events: the refund plus the order it belongs to (with the order's metadata). */
export function refundEventObject(r: RefundRow, o: OrderRow) {
  return {
    ...serializeRefund(r),
    order: {
      id: o.id,
      order_no: o.order_no,
      state: o.state,
      amount: formatUnits(o.amount),
      refunded_amount: formatUnits(o.refunded_amount),
      metadata: o.metadata,
    },
  };
}
