import type { Db } from '../../db/client.js';
import { formatUnits } from '../../lib/money.js';
import type { BalanceService } from '../balance/index.js';
import { parseRange } from '../balance/list-transactions.js';
import { serializeBalanceTransaction } from '../balance/serialize.js';
import { serializeOrder } from '../orders/serialize.js';
import { serializeRefund } from '../refunds/serialize.js';
import { serializeSettlement } from '../settlements/serialize.js';
import { csvStream } from './csv.js';
import { exportsRepo, type After, type Range } from './repo.js';

export const EXPORT_KINDS = ['orders', 'refunds', 'balance_transactions', 'settlements'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export type ExportsDeps = { db: Db; balance: BalanceService; pageSize?: number };

const units = (v: string) => formatUnits(BigInt(v));
const HEADERS: Record<ExportKind, string[]> = {
  orders: ['id', 'order_no', 'merchant_id', 'chain_id', 'token', 'amount', 'state', 'service_fee', 'platform_fee', 'merchant_gross', 'reserve_hold', 'merchant_available', 'refunded_amount', 'payer_address', 'paid_by', 'tx_hash', 'created_at', 'confirmed_at', 'metadata'],
  refunds: ['id', 'order_id', 'amount', 'state', 'reserve_portion', 'funding_required', 'funded_by', 'to', 'tx_hash', 'reason', 'created_at', 'completed_at', 'metadata'],
  balance_transactions: ['id', 'type', 'status', 'amount', 'from_address', 'to_address', 'merchant_id', 'order_id', 'refund_id', 'settlement_id', 'chain_id', 'tx_hash', 'log_index', 'event_key', 'block_time'],
  settlements: ['settlement_id', 'state', 'chain_id', 'tx_hash', 'created_at', 'confirmed_at', 'order_id', 'order_no', 'merchant_id', 'amount', 'released_amount', 'item_state'],
};
type Page = { rows: unknown[][]; after: After | null };
const last = <T extends { created_at: Date; id: string }>(rows: T[], size: number): After | null => (rows.length < size ? null : { time: rows.at(-1)!.created_at, id: rows.at(-1)!.id });

/**
 * CSV exports (RFC 4180; amounts as decimal strings in human units; ISO-8601 UTC times), newest first, each
 * row built by the same serializer as the API's JSON. Streamed in keyset pages of `pageSize` rows.
 */
export function createExportsService(deps: ExportsDeps) {
  const size = deps.pageSize ?? 1000;
  const pages: Record<ExportKind, (platformId: string, r: Range, after: After | null) => Promise<Page>> = {
    orders: async (p, r, after) => {
      const rows = await exportsRepo.orders(deps.db, p, r, after, size);
      return { after: last(rows, size), rows: rows.map(serializeOrder).map((o) => [o.id, o.order_no, o.merchant_id, o.chain_id, o.token, o.amount, o.state,
        units(o.computed_split.service_fee), units(o.computed_split.platform_fee), units(o.computed_split.merchant_gross), units(o.computed_split.reserve_hold),
        units(o.computed_split.merchant_available), o.refunded_amount, o.payer_address, o.paid_by, o.tx_hash, o.created_at, o.confirmed_at, o.metadata]) };
    },
    refunds: async (p, r, after) => {
      const rows = await exportsRepo.refunds(deps.db, p, r, after, size);
      return { after: last(rows, size), rows: rows.map(serializeRefund).map((x) => [x.id, x.order_id, x.amount, x.state, units(x.reserve_portion),
        units(x.funding_required), x.funded_by, x.to, x.tx_hash, x.reason, x.created_at, x.completed_at, x.metadata]) };
    },
    balance_transactions: async (p, r, after) => {
      const rows = await deps.balance.ledgerRows(p, { from: r.from?.toISOString(), to: r.to?.toISOString(), limit: size }, size, after);
      const page = rows.slice(0, size);
      const end = page.at(-1);
      return { after: rows.length > size && end ? { time: new Date(end.block_time), id: end.id } : null,
        rows: page.map(serializeBalanceTransaction).map((t) => HEADERS.balance_transactions.map((h) => t[h as keyof typeof t])) };
    },
    settlements: async (p, r, after) => {
      const batches = await exportsRepo.settlements(deps.db, p, r, after, Math.max(1, Math.floor(size / 100)));
      const items = await exportsRepo.settlementItems(deps.db, p, batches.map((b) => b.id));
      const rows = batches.flatMap((b) => {
        const s = serializeSettlement(b, items.filter((i) => i.settlement_id === b.id));
        return s.orders.map((i) => [s.id, s.state, s.chain_id, s.tx_hash, s.created_at, s.confirmed_at, i.order_id, i.order_no, i.merchant_id, i.amount, i.released_amount, i.state]);
      });
      return { rows, after: last(batches, Math.max(1, Math.floor(size / 100))) };
    },
  };
  return {
    /** Validates the range (422 naming `to` when inverted) before any byte is sent. */
    stream(kind: ExportKind, platformId: string, q: { from?: string | undefined; to?: string | undefined }): ReadableStream<Uint8Array> {
      const range = parseRange(q);
      return csvStream<After>(HEADERS[kind], (after) => pages[kind](platformId, range, after));
    },
  };
}
export type ExportsService = ReturnType<typeof createExportsService>;
