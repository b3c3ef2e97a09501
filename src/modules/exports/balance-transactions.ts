import { serializeBalanceTransaction } from '../balance/serialize.js';
import type { ExportKindSpec } from './types.js';

const header = ['id', 'type', 'status', 'amount', 'from_address', 'to_address', 'merchant_id', 'order_id', 'refund_id', 'settlement_id', 'chain_id', 'tx_hash', 'log_index', 'event_key', 'block_time'] as const;

/** balance_transactions.csv: the ledger's own pages (one more row than the page says whether there is more). */
export const balanceTransactionsExport: ExportKindSpec = {
  header,
  async page(deps, platformId, r, after) {
    const rows = await deps.balance.ledgerRows(platformId, { from: r.from?.toISOString(), to: r.to?.toISOString(), limit: deps.size }, deps.size, after);
    const page = rows.slice(0, deps.size);
    const end = page.at(-1);
    return {
      after: rows.length > deps.size && end ? { time: new Date(end.block_time), id: end.id } : null,
      rows: page.map(serializeBalanceTransaction).map((t) => header.map((h) => t[h])),
    };
  },
};
