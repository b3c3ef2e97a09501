import type { RelayView } from './repo.js';

/** The relay object: `submitted` is a pending relay whose transaction has been signed and sent. */
export function serializeRelay(r: RelayView) {
  const txHash = r.tx_hash ?? r.sent_tx_hash;
  return {
    id: r.id,
    object: 'relay' as const,
    order_id: r.order_id,
    state: r.state === 'pending' && txHash ? ('submitted' as const) : r.state,
    from: r.payer,
    tx_hash: txHash,
    error: r.error_code ? { code: r.error_code, message: r.error_message ?? r.error_code } : null,
    gas_used: r.gas_used?.toString() ?? null,
    gas_cost_wei: r.gas_cost_wei,
    created_at: r.created_at.toISOString(),
  };
}
export type SerializedRelay = ReturnType<typeof serializeRelay>;
