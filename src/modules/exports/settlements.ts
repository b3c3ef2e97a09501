import { serializeSettlement } from '../settlements/serialize.js';
import { exportsRepo } from './repo.js';
import { lastOf, type Columns, type ExportKindSpec } from './types.js';

const columns: Columns = [
  ['settlement_id', 'text'], ['state', 'text'], ['chain_id', 'integer'], ['tx_hash', 'text'], ['created_at', 'time'], ['confirmed_at', 'time'],
  ['order_id', 'text'], ['order_no', 'text'], ['merchant_id', 'text'], ['amount', 'amount'], ['released_amount', 'amount'], ['item_state', 'text'],
];

/** settlements.csv: one row per (batch, order of this platform); a batch holds at most 100 orders, so pages are of batches. */
export const settlementsExport: ExportKindSpec = {
  columns,
  async page(deps, platformId, r, after) {
    const batchesPerPage = Math.max(1, Math.floor(deps.size / 100));
    const batches = await exportsRepo.settlements(deps.db, platformId, r, after, batchesPerPage);
    const items = await exportsRepo.settlementItems(deps.db, platformId, batches.map((b) => b.id));
    const rows = batches.flatMap((b) => {
      const s = serializeSettlement(b, items.filter((i) => i.settlement_id === b.id));
      return s.orders.map((i) => [s.id, s.state, s.chain_id, s.tx_hash, s.created_at, s.confirmed_at, i.order_id, i.order_no, i.merchant_id, i.amount, i.released_amount, i.state]);
    });
    return { rows, after: lastOf(batches, batchesPerPage) };
  },
};
