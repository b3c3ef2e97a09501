import { serializeRefund } from '../refunds/serialize.js';
import { exportsRepo } from './repo.js';
import { lastOf, units, type ExportKindSpec } from './types.js';

/** refunds.csv: the API's refund (serializeRefund), portions in human units. */
export const refundsExport: ExportKindSpec = {
  header: ['id', 'order_id', 'amount', 'state', 'reserve_portion', 'funding_required', 'funded_by', 'to', 'tx_hash', 'reason', 'created_at', 'completed_at', 'metadata'],
  async page(deps, platformId, r, after) {
    const rows = await exportsRepo.refunds(deps.db, platformId, r, after, deps.size);
    return {
      after: lastOf(rows, deps.size),
      rows: rows.map(serializeRefund).map((x) => [x.id, x.order_id, x.amount, x.state, units(x.reserve_portion),
        units(x.funding_required), x.funded_by, x.to, x.tx_hash, x.reason, x.created_at, x.completed_at, x.metadata]),
    };
  },
};
