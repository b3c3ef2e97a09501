import { formatUnits } from '../../lib/money.js';
import type { ItemRow, SettlementRow } from './repo.js';

/** What an item pays: what was released, what is still expected while the batch is in flight, else nothing. */
const paid = (i: ItemRow) => (i.state === 'released' ? (i.released_amount ?? 0n) : i.state === 'included' ? i.amount : 0n);

/**
 * A batch as one platform sees it: only its own orders, and its own total (human units, like every
 * amount a person reads). A batch may carry several platforms' orders; none sees the others'.
 */
export function serializeSettlement(s: SettlementRow, items: ItemRow[]) {
  return {
    id: s.id,
    object: 'settlement' as const,
    chain_id: s.chain_id,
    state: s.state,
    order_count: items.length,
    total: formatUnits(items.reduce((sum, i) => sum + paid(i), 0n)),
    tx_hash: s.tx_hash,
    created_at: s.created_at.toISOString(),
    confirmed_at: s.confirmed_at?.toISOString() ?? null,
    orders: items.map((i) => ({
      order_id: i.order_id,
      order_no: i.order_no,
      merchant_id: i.merchant_id,
      amount: formatUnits(i.amount),
      released_amount: i.released_amount === null ? null : formatUnits(i.released_amount),
      state: i.state,
    })),
  };
}
export type SerializedSettlement = ReturnType<typeof serializeSettlement>;
