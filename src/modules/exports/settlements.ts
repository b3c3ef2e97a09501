import { serializeSettlement } from '../settlements/serialize.js';
import { exportsRepo } from './repo.js';
import { lastOf, type ExportKindSpec } from './types.js';

/** settlements.csv: one row per (batch, order of this platform); a batch holds at most 100 orders, so pages are of batches. */
export const settlementsExport: ExportKindSpec = {
  header: ['settlement_id', 'state', 'chain_id', 'tx_hash', 'created_at', 'confirmed_at', 'order_id', 'order_no', 'merchant_id', 'amount', 'released_amount', 'item_state'],
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
