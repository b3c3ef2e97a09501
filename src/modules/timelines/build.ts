import type { Executor } from '../../db/client.js';
import { formatUnits } from '../../lib/money.js';
import type { MerchantRow } from '../merchants/repo.js';
import type { OrderRow } from '../orders/repo.js';
import { eventItems, item, sorted, txItems, type TimelineItem } from './items.js';
import { timelineRepo } from './repo.js';

export type TimelineDeps = { db: Executor; explorer(chainId: number): string | null };
type RefundRow = Awaited<ReturnType<typeof timelineRepo.refundsOfOrder>>[number];
/** Refunds and reserves are paid in their order's token; USDC is the only token the service takes. */
const UNIT = 'USDC';

function orderItems(o: OrderRow): TimelineItem[] {
  const ref = { order_id: o.id };
  return [
    ...item(o.created_at, 'order.created', `Order ${o.order_no} created for ${formatUnits(o.amount)} ${o.token}`, ref),
    ...item(o.authorized_at, 'order.authorized', `Payment authorized (${formatUnits(o.amount_authorized)} ${o.token})`, { ...ref, tx_hash: o.authorization_tx_hash }),
    ...item(o.paid_at, 'order.paid', `Paid by ${o.paid_by ?? 'the buyer'}`, { ...ref, tx_hash: o.tx_hash, payer: o.paid_by }),
    ...item(o.capture_requested_at, 'order.capture_requested', 'Capture requested', ref),
    ...item(o.capture_method === 'manual' && o.state !== 'authorized' ? o.confirmed_at : null, 'order.captured', `Captured ${formatUnits(o.amount_captured)} ${o.token}`, ref),
    ...item(o.confirmed_at, 'order.confirmed', 'Confirmed on chain', ref),
    ...item(o.void_requested_at, 'order.void_requested', 'Void requested', ref),
    ...item(o.voided_at, 'order.voided', `Authorization voided (${o.void_reason ?? 'voided'})`, { ...ref, tx_hash: o.void_tx_hash }),
    ...item(o.expired_at, 'order.expired', 'Expired unpaid', ref),
    ...item(o.failed_at, 'order.failed', `Failed${o.failure_reason ? `: ${o.failure_reason}` : ''}`, ref),
  ];
}

const refundItems = (r: RefundRow): TimelineItem[] => [
  ...item(r.created_at, 'refund.created', `Refund of ${formatUnits(r.amount)} ${UNIT} requested`, { refund_id: r.id, order_id: r.order_id, amount: formatUnits(r.amount) }),
  ...item(r.completed_at, 'refund.completed', `Refund of ${formatUnits(r.amount)} ${UNIT} paid to the buyer`, { refund_id: r.id, tx_hash: r.tx_hash }),
  ...item(r.state === 'failed' ? r.created_at : null, 'refund.failed', `Refund failed${r.failure_reason ? `: ${r.failure_reason}` : ''}`, { refund_id: r.id }),
];

async function settlementItems(deps: TimelineDeps, orderIds: string[]) {
  const rows = await timelineRepo.settlementsOfOrders(deps.db, orderIds);
  const items = rows.flatMap((s) => [
    ...item(s.created_at, 'settlement.created', `Reserve of ${formatUnits(BigInt(s.amount))} ${UNIT} included in settlement ${s.id}`, { settlement_id: s.id, order_id: s.order_id }),
    ...item(s.confirmed_at, 'settlement.completed', `Settlement ${s.id} confirmed (${s.item_state})`, { settlement_id: s.id, order_id: s.order_id, tx_hash: s.tx_hash }),
  ]);
  return { items, onchainIds: rows.map((s) => s.onchain_id) };
}

/** GET /v1/orders/:id/timeline. */
export async function orderTimeline(deps: TimelineDeps, platformId: string, o: OrderRow) {
  const refunds = await timelineRepo.refundsOfOrder(deps.db, platformId, o.id);
  const settlements = await settlementItems(deps, [o.id]);
  const events = await timelineRepo.eventsAbout(deps.db, platformId, [o.id, ...refunds.map((r) => r.id), ...(o.checkout_session_id ? [o.checkout_session_id] : [])]);
  const txs = await timelineRepo.chainLogs(deps.db, [o.onchain_id, ...settlements.onchainIds]);
  return sorted([...orderItems(o), ...refunds.flatMap(refundItems), ...settlements.items, ...eventItems(events), ...txItems(txs, deps.explorer)]);
}

/** GET /v1/refunds/:id/timeline: the refund, its events and its transaction (and the order it refunds). */
export async function refundTimeline(deps: TimelineDeps, platformId: string, r: RefundRow, order: OrderRow) {
  const events = await timelineRepo.eventsAbout(deps.db, platformId, [r.id]);
  const txs = (await timelineRepo.chainLogs(deps.db, [order.onchain_id])).filter((t) => r.tx_hash !== null && t.tx_hash === r.tx_hash);
  const orderRef = item(order.created_at, 'order.created', `Order ${order.order_no} created for ${formatUnits(order.amount)} ${order.token}`, { order_id: order.id });
  return sorted([...orderRef, ...refundItems(r), ...eventItems(events), ...txItems(txs, deps.explorer)]);
}

/** GET /v1/merchants/:id/timeline: the merchant, its last 100 orders (created, paid, confirmed…), their refunds and the merchant's events. */
export async function merchantTimeline(deps: TimelineDeps, platformId: string, m: MerchantRow) {
  const orders = await timelineRepo.ordersOfMerchant(deps.db, platformId, m.id);
  const refunds = await timelineRepo.refundsOfOrders(deps.db, platformId, orders.map((o) => o.id));
  const events = await timelineRepo.eventsAbout(deps.db, platformId, [m.id]);
  return sorted([
    ...item(m.created_at, 'merchant.created', `Merchant ${m.name} created`, { merchant_id: m.id }),
    ...orders.flatMap(orderItems), ...refunds.flatMap(refundItems), ...eventItems(events),
  ]);
}
