import { formatUnits } from '../../lib/money.js';
import type { OrderRow } from './repo.js';

export function serializeOrder(o: OrderRow) {
  return {
    id: o.id,
    object: 'order' as const,
    merchant_id: o.merchant_external_id,
    order_no: o.order_no,
    chain_id: o.chain_id,
    token: o.token,
    token_address: o.token_address,
    amount: formatUnits(o.amount),
    metadata: o.metadata,
    state: o.state,
    pay_to: o.pay_to,
    computed_split: {
      service_fee: o.service_fee.toString(),
      platform_fee: o.platform_fee.toString(),
      merchant_gross: o.merchant_gross.toString(),
      reserve_hold: o.reserve_hold.toString(),
      merchant_available: o.merchant_available.toString(),
    },
    eip712: o.eip712 as { domain: { name: string; version: string; chainId: number; verifyingContract: string }; primary_type: string; types: Record<string, { name: string; type: string }[]>; message: Record<string, unknown> },
    signature: o.signature,
    deadline_at: o.deadline_at.toISOString(),
    payer_address: o.payer_address,
    paid_by: o.paid_by,
    tx_hash: o.tx_hash,
    refunded_amount: formatUnits(o.refunded_amount),
    reserve_remaining: o.reserve_remaining.toString(),
    checkout_session_id: o.checkout_session_id,
    subscription_id: o.subscription_id,
    subscription_period: o.subscription_period,
    failure_reason: o.failure_reason,
    created_at: o.created_at.toISOString(),
    confirmed_at: o.confirmed_at?.toISOString() ?? null,
    capture_method: o.capture_method,
    capture_before: o.capture_before?.toISOString() ?? null,
    amount_authorized: formatUnits(o.amount_authorized),
    amount_captured: formatUnits(o.amount_captured),
    capture_requested_at: o.capture_requested_at?.toISOString() ?? null,
    void_requested_at: o.void_requested_at?.toISOString() ?? null,
    void_reason: o.void_reason,
  };
}
export type SerializedOrder = ReturnType<typeof serializeOrder>;
