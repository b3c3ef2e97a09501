import { formatUnits } from '../../lib/money.js';
import type { LedgerRow } from './repo.js';

export const toBig = (v: bigint | string | number | null | undefined): bigint => (v === null || v === undefined ? 0n : BigInt(v));
export const toIso = (v: Date | string | null | undefined): string | null => (v === null || v === undefined ? null : new Date(v).toISOString());

export function serializeBalanceTransaction(r: LedgerRow) {
  return {
    id: r.id,
    object: 'balance_transaction' as const,
    type: r.type,
    status: r.status,
    amount: formatUnits(toBig(r.amount)),
    from_address: r.from_address,
    to_address: r.to_address,
    merchant_id: r.merchant_id,
    order_id: r.order_id,
    refund_id: r.refund_id,
    settlement_id: r.settlement_id,
    chain_id: r.chain_id,
    tx_hash: r.tx_hash,
    log_index: r.log_index === null ? null : Number(r.log_index),
    event_key: r.event_key,
    block_time: toIso(r.block_time)!,
  };
}
export type SerializedBalanceTransaction = ReturnType<typeof serializeBalanceTransaction>;
