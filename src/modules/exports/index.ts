import type { Db } from '../../db/client.js';
import type { BalanceService } from '../balance/index.js';
import { parseRange } from '../balance/list-transactions.js';
import { balanceTransactionsExport } from './balance-transactions.js';
import { csvStream } from './csv.js';
import { ordersExport } from './orders.js';
import { refundsExport } from './refunds.js';
import type { After } from './repo.js';
import { settlementsExport } from './settlements.js';
import type { ExportKindSpec } from './types.js';

export const EXPORT_KINDS = ['orders', 'refunds', 'balance_transactions', 'settlements'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export type ExportsDeps = { db: Db; balance: BalanceService; pageSize?: number };

const KINDS: Record<ExportKind, ExportKindSpec> = {
  orders: ordersExport, refunds: refundsExport, balance_transactions: balanceTransactionsExport, settlements: settlementsExport,
};

/**
 * CSV exports (RFC 4180; amounts as decimal strings in human units; ISO-8601 UTC times; text cells that a
 * spreadsheet would run as a formula prefixed with '), newest first, each row built by the same serializer as
 * the API's JSON. Streamed in keyset pages of `pageSize` rows.
 */
export function createExportsService(deps: ExportsDeps) {
  const pageDeps = { db: deps.db, balance: deps.balance, size: deps.pageSize ?? 1000 };
  return {
    /** Validates the range (422 naming `to` when inverted) before any byte is sent. */
    stream(kind: ExportKind, platformId: string, q: { from?: string | undefined; to?: string | undefined }): ReadableStream<Uint8Array> {
      const range = parseRange(q);
      const spec = KINDS[kind];
      return csvStream<After>(spec.columns, (after) => spec.page(pageDeps, platformId, range, after));
    },
  };
}
export type ExportsService = ReturnType<typeof createExportsService>;
