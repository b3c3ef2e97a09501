import { serializeBalanceTransaction, type SerializedBalanceTransaction } from '../balance/serialize.js';
import type { Columns, ExportKindSpec } from './types.js';

const columns = [
  ['id', 'text'], ['type', 'text'], ['status', 'text'], ['amount', 'amount'], ['from_address', 'text'], ['to_address', 'text'],
  ['merchant_id', 'text'], ['order_id', 'text'], ['refund_id', 'text'], ['settlement_id', 'text'], ['chain_id', 'integer'],
  ['tx_hash', 'text'], ['log_index', 'integer'], ['event_key', 'text'], ['block_time', 'time'],
] as const satisfies readonly (readonly [keyof SerializedBalanceTransaction, Columns[number][1]])[];

/** balance_transactions.csv: the ledger's own pages (one more row than the page says whether there is more). */
export const balanceTransactionsExport: ExportKindSpec = {
  columns,
  async page(deps, platformId, r, after) {
    const rows = await deps.balance.ledgerRows(platformId, { from: r.from?.toISOString(), to: r.to?.toISOString(), limit: deps.size }, deps.size, after);
    const page = rows.slice(0, deps.size);
    const end = page.at(-1);
    return {
      after: rows.length > deps.size && end ? { time: new Date(end.block_time), id: end.id } : null,
      rows: page.map(serializeBalanceTransaction).map((t) => columns.map(([name]) => t[name])),
    };
  },
};
