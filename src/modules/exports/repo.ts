import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { OrderRow } from '../orders/repo.js';
import type { RefundRow } from '../refunds/repo.js';
import type { ItemRow, SettlementRow } from '../settlements/repo.js';

/** Read-only keyset pages for CSV exports, newest first, over [from, to) of each resource's created_at. */
export type Range = { from?: Date | undefined; to?: Date | undefined };
export type After = { time: Date; id: string };

const window = (col: string, r: Range, after: After | null) => sql`
  ${r.from ? sql`and ${sql.ref(col)} >= ${r.from}` : sql``} ${r.to ? sql`and ${sql.ref(col)} < ${r.to}` : sql``}
  ${after ? sql`and (${sql.ref(col)}, id) < (${after.time}, ${after.id})` : sql``}`;

export const exportsRepo = {
  /** Every column but the signed typed data and signature (most of a row's bytes; not in the CSV). */
  orders: async (db: Executor, platformId: string, r: Range, after: After | null, limit: number) => (await sql<OrderRow>`
    select id, merchant_external_id, order_no, chain_id, token, token_address, amount, metadata, state, pay_to, service_fee, platform_fee,
      merchant_gross, reserve_hold, merchant_available, deadline_at, payer_address, paid_by, tx_hash, refunded_amount, reserve_remaining, checkout_session_id,
      failure_reason, created_at, confirmed_at, capture_method, capture_before, amount_authorized, amount_captured, capture_requested_at,
      void_requested_at, void_reason, subscription_id, subscription_period, deposit_address, refund_address, amount_received, null as eip712, '' as signature
    from orders where platform_id = ${platformId} ${window('created_at', r, after)}
    order by created_at desc, id desc limit ${limit}`.execute(db)).rows,

  refunds: async (db: Executor, platformId: string, r: Range, after: After | null, limit: number) => (await sql<RefundRow>`
    select id, order_id, amount, state, reason, metadata, reserve_portion, funding_required, funded_by, to_address, pay_to, deadline_at, tx_hash,
      failure_reason, created_at, completed_at, attempts, cancel_requested_at, null as eip712, '' as signature from refunds where platform_id = ${platformId} ${window('created_at', r, after)}
    order by created_at desc, id desc limit ${limit}`.execute(db)).rows,

  /** Batches carrying any of the platform's orders (a batch holds at most 100 orders, so pages stay small). */
  settlements: async (db: Executor, platformId: string, r: Range, after: After | null, limit: number) => (await sql<SettlementRow>`
    select s.* from settlements s where exists (select 1 from settlement_items i where i.settlement_id = s.id and i.platform_id = ${platformId})
    ${window('s.created_at', r, after)} order by s.created_at desc, s.id desc limit ${limit}`.execute(db)).rows,

  settlementItems: async (db: Executor, platformId: string, ids: string[]) => ids.length === 0 ? [] : (await sql<ItemRow>`
    select i.*, o.order_no, o.merchant_external_id as merchant_id from settlement_items i join orders o on o.id = i.order_id
    where i.platform_id = ${platformId} and i.settlement_id in (${sql.join(ids)}) order by i.settlement_id, i.order_id`.execute(db)).rows,
};
