import type { Db } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import type { RefundState } from '../../db/schema.js';
import { notFound } from '../../lib/errors.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { serializeRefund } from './serialize.js';

export type ListRefundsQuery = { order_id?: string | undefined; state?: RefundState | undefined; limit: number; cursor?: string | undefined };

/** GET /v1/refunds/:id: the platform's refund, or 404 (another platform's refund is 404 too). */
export async function getRefund(db: Db, platformId: string, id: string): Promise<RefundRow> {
  const refund = await refundsRepo.findById(db, platformId, id);
  if (!refund) throw notFound('refund');
  return refund;
}

/** GET /v1/refunds: newest first, filtered by order and state. */
export async function listRefunds(db: Db, platformId: string, q: ListRefundsQuery) {
  const rows = await refundsRepo.list(db, platformId, { orderId: q.order_id, state: q.state }, q.limit, decodeCursor(q.cursor));
  return toPage(rows, q.limit, serializeRefund);
}
