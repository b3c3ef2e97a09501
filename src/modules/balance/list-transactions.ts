import type { Executor } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { invalid, notFound } from '../../lib/errors.js';
import { balanceRepo, type LedgerRow } from './repo.js';
import { BALANCE_TRANSACTION_TYPES, type BalanceTransactionType } from './schemas.js';
import { serializeBalanceTransaction } from './serialize.js';

export type LedgerQuery = {
  merchant_id?: string | undefined; type?: BalanceTransactionType | undefined;
  from?: string | undefined; to?: string | undefined; limit: number; cursor?: string | undefined;
};
export type LedgerDeps = { db: Executor; serviceTreasury: string | null };

/** Validated range: `from` inclusive, `to` exclusive, `to` after `from` (else 422 naming `to`). */
export function parseRange(q: { from?: string | undefined; to?: string | undefined }) {
  const from = q.from ? new Date(q.from) : undefined;
  const to = q.to ? new Date(q.to) : undefined;
  if (from && to && to <= from) throw invalid('to', 'to must be later than from');
  return { from, to };
}

/** Rows of one page, fetched with limit + 1 (the extra row says there is more). Exports reuse it with bigger pages. */
export async function ledgerRows(deps: LedgerDeps, platformId: string, q: LedgerQuery, limit: number, before: { time: Date; id: string } | null): Promise<LedgerRow[]> {
  const { from, to } = parseRange(q);
  return balanceRepo.ledgerPage(deps.db, {
    platformId, merchantId: q.merchant_id, types: q.type ? [q.type] : BALANCE_TRANSACTION_TYPES,
    from, to, before, limit: limit + 1, serviceTreasury: deps.serviceTreasury,
  });
}

/** GET /v1/balance_transactions: newest first by block time, then id; keyset cursor. */
export async function listBalanceTransactions(deps: LedgerDeps, platformId: string, q: LedgerQuery) {
  const cursor = decodeCursor(q.cursor);
  if (q.merchant_id !== undefined && !(await balanceRepo.merchantExists(deps.db, platformId, q.merchant_id))) throw notFound('merchant');
  const rows = await ledgerRows(deps, platformId, q, q.limit, cursor && { time: cursor.createdAt, id: cursor.id });
  return toPage(rows.map((r) => ({ ...r, created_at: new Date(r.block_time) })), q.limit, serializeBalanceTransaction);
}
