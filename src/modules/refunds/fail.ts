import type { Executor } from '../../db/client.js';
import { emitEvent } from '../events/service.js';
import type { OrderRow } from '../orders/repo.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { refundEventObject } from './serialize.js';
import { REFUND_TRANSITIONS } from './state.js';
import { canMove } from '../../lib/transitions.js';

/** Emits refund.completed / refund.failed with the order (and its metadata) alongside the refund. */
export async function emitRefundEvent(tx: Executor, type: 'refund.completed' | 'refund.failed', refund: RefundRow, order?: OrderRow) {
  const o = order ?? (await refundsRepo.findOrder(tx, refund.order_id))!;
  await emitEvent(tx, { platformId: refund.platform_id, type, data: { object: refundEventObject(refund, o) } });
}

/** An open refund → failed, with its event; no-op (undefined) when it had already moved on. */
export async function failRefund(tx: Executor, refund: RefundRow, reason: string): Promise<RefundRow | undefined> {
  if (!canMove(REFUND_TRANSITIONS, refund.state, 'fail')) return undefined;
  const failed = await refundsRepo.update(tx, refund.id, REFUND_TRANSITIONS.fail.from, { state: REFUND_TRANSITIONS.fail.to, failure_reason: reason, submit_lease_until: null });
  if (failed) await emitRefundEvent(tx, 'refund.failed', failed);
  return failed;
}
