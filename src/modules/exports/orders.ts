import { serializeOrder } from '../orders/serialize.js';
import { exportsRepo } from './repo.js';
import { lastOf, units, type Columns, type ExportKindSpec } from './types.js';

const columns: Columns = [
  ['id', 'text'], ['order_no', 'text'], ['merchant_id', 'text'], ['chain_id', 'integer'], ['token', 'text'], ['amount', 'amount'],
  ['state', 'text'], ['service_fee', 'amount'], ['platform_fee', 'amount'], ['merchant_gross', 'amount'], ['reserve_hold', 'amount'],
  ['merchant_available', 'amount'], ['refunded_amount', 'amount'], ['payer_address', 'text'], ['paid_by', 'text'], ['tx_hash', 'text'],
  ['created_at', 'time'], ['confirmed_at', 'time'], ['metadata', 'text'],
  // Charge later (appended, so readers by position keep working): as the API's order; capture_before is null for automatic.
  ['capture_method', 'text'], ['capture_before', 'time'], ['amount_authorized', 'amount'], ['amount_captured', 'amount'],
  // A subscription's charge: its id (as the API's order) and the period it pays (0 = first; the orders row, not in the JSON).
  ['subscription_id', 'text'], ['subscription_period', 'integer'],
];

/**
 * orders.csv: the API's order (serializeOrder) with its split flattened, without the signed typed data, plus the
 * row's subscription_period.
 */
export const ordersExport: ExportKindSpec = {
  columns,
  async page(deps, platformId, r, after) {
    const rows = await exportsRepo.orders(deps.db, platformId, r, after, deps.size);
    return {
      after: lastOf(rows, deps.size),
      rows: rows.map((row) => {
        const o = serializeOrder(row);
        return [o.id, o.order_no, o.merchant_id, o.chain_id, o.token, o.amount, o.state,
          units(o.computed_split.service_fee), units(o.computed_split.platform_fee), units(o.computed_split.merchant_gross), units(o.computed_split.reserve_hold),
          units(o.computed_split.merchant_available), o.refunded_amount, o.payer_address, o.paid_by, o.tx_hash, o.created_at, o.confirmed_at, o.metadata,
          o.capture_method, o.capture_before, o.amount_authorized, o.amount_captured, o.subscription_id, row.subscription_period];
      }),
    };
  },
};
