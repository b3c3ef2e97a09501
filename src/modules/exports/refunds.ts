import { serializeRefund } from '../refunds/serialize.js';
import { exportsRepo } from './repo.js';
import { lastOf, units, type Columns, type ExportKindSpec } from './types.js';

const columns: Columns = [
  ['id', 'text'], ['order_id', 'text'], ['amount', 'amount'], ['state', 'text'], ['reserve_portion', 'amount'], ['funding_required', 'amount'],
  ['funded_by', 'text'], ['to', 'text'], ['tx_hash', 'text'], ['reason', 'text'], ['created_at', 'time'], ['completed_at', 'time'], ['metadata', 'text'],
];

/** refunds.csv: the API's refund (serializeRefund), portions in human units. `reason` is the buyer's or platform's text. */
export const refundsExport: ExportKindSpec = {
  columns,
  async page(deps, platformId, r, after) {
    const rows = await exportsRepo.refunds(deps.db, platformId, r, after, deps.size);
    return {
      after: lastOf(rows, deps.size),
      rows: rows.map(serializeRefund).map((x) => [x.id, x.order_id, x.amount, x.state, units(x.reserve_portion),
        units(x.funding_required), x.funded_by, x.to, x.tx_hash, x.reason, x.created_at, x.completed_at, x.metadata]),
    };
  },
};
