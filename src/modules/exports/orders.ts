import { serializeOrder } from '../orders/serialize.js';
import { exportsRepo } from './repo.js';
import { lastOf, units, type ExportKindSpec } from './types.js';

/** orders.csv: the API's order (serializeOrder) with its split flattened, without the signed typed data. */
export const ordersExport: ExportKindSpec = {
  header: ['id', 'order_no', 'merchant_id', 'chain_id', 'token', 'amount', 'state', 'service_fee', 'platform_fee', 'merchant_gross', 'reserve_hold', 'merchant_available', 'refunded_amount', 'payer_address', 'paid_by', 'tx_hash', 'created_at', 'confirmed_at', 'metadata'],
  async page(deps, platformId, r, after) {
    const rows = await exportsRepo.orders(deps.db, platformId, r, after, deps.size);
    return {
      after: lastOf(rows, deps.size),
      rows: rows.map(serializeOrder).map((o) => [o.id, o.order_no, o.merchant_id, o.chain_id, o.token, o.amount, o.state,
        units(o.computed_split.service_fee), units(o.computed_split.platform_fee), units(o.computed_split.merchant_gross), units(o.computed_split.reserve_hold),
        units(o.computed_split.merchant_available), o.refunded_amount, o.payer_address, o.paid_by, o.tx_hash, o.created_at, o.confirmed_at, o.metadata]),
    };
  },
};
