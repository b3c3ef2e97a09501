import { sql } from 'kysely';
import type { Tx } from '../../db/client.js';
import { emitEvent } from '../events/service.js';
import type { DepositLog } from '../indexer/events.js';
import type { OrderTransitioned } from '../orders/events.js';
import type { OrderRow } from '../orders/repo.js';
import { serializeOrder } from '../orders/serialize.js';
import type { DepositsDeps } from './deps.js';
import { depositsRepo, type DepositRow } from './repo.js';
import { chainTime, maybeSweep } from './sweep.js';

const REASONS = { 1: 'late', 2: 'settled', 3: 'excess', 4: 'other_token' } as const;

/**
 * A new deposit log at confirmation depth (once each: the indexer recorded its key first), in the range's transaction.
 * A transfer in adds to amount_received (order.underpaid while short), then maybe one sweep; DepositReturned is a
 * payment.returned (and order.overpaid for the excess of a payment); DepositSwept needs nothing: the router's OrderPaid
 * in the same transaction pays the order through the ordinary path.
 */
export async function applyDepositLog(deps: DepositsDeps, tx: Tx, chainId: number, log: DepositLog, blockTime: Date): Promise<void> {
  if (log.eventName === 'Transfer') return transferIn(deps, tx, chainId, log.args.to, log.args.value, blockTime);
  const dep = await depositsRepo.byAddress(tx, chainId, log.address);
  if (!dep || log.eventName !== 'DepositReturned') return;
  const a = log.args;
  const counted = a.token.toLowerCase() === (await depositsRepo.order(tx, dep.order_id)).token_address.toLowerCase();
  if (counted) await tx.updateTable('deposits').set({ amount_returned: sql`amount_returned + ${a.amount.toString()}::int8` }).where('order_id', '=', dep.order_id).execute();
  const order = await depositsRepo.order(tx, dep.order_id);
  await emitEvent(tx, { platformId: dep.platform_id, type: 'payment.returned', data: { object: {
    object: 'payment_return', order_id: order.id, deposit_address: order.deposit_address, refund_address: a.to, token_address: a.token,
    amount: a.amount.toString(), reason: REASONS[a.reason as 1 | 2 | 3 | 4] ?? 'settled', tx_hash: log.transactionHash, metadata: order.metadata,
  } } });
  if (a.reason === 3) await emitEvent(tx, { platformId: dep.platform_id, type: 'order.overpaid', data: { object: serializeOrder(order) } });
}

async function transferIn(deps: DepositsDeps, tx: Tx, chainId: number, to: string, value: bigint, blockTime: Date) {
  const dep = await depositsRepo.byAddress(tx, chainId, to);
  if (!dep || value === 0n) return;
  const locked = (await depositsRepo.byOrderForUpdate(tx, dep.order_id))!;
  const order = (await tx.updateTable('orders').set({ amount_received: sql`amount_received + ${value.toString()}::int8`, updated_at: sql`now()` })
    .where('id', '=', dep.order_id).returningAll().executeTakeFirstOrThrow()) as OrderRow;
  if (order.state === 'pending_payment' && order.amount_received < order.amount) {
    await emitEvent(tx, { platformId: dep.platform_id, type: 'order.underpaid', data: { object: serializeOrder(order) } });
  }
  await maybeSweep(deps, tx, locked, order, blockTime);
}

/**
 * Orders follow-up: an order that expired or was paid another way while its deposit holds funds gets a returning sweep
 * (for late_payment accept, expiry comes before the deposit's own deadline: then the funds wait for it, docs/deposits.md).
 */
export const depositsFollowOrders = (deps: DepositsDeps) => async (e: OrderTransitioned): Promise<void> => {
  if (e.to !== 'expired' && e.to !== 'confirmed') return;
  const ids = e.moved.map((m) => m.order.id);
  const deps_ = await e.tx.selectFrom('deposits').selectAll().where('order_id', 'in', ids.length > 0 ? ids : ['']).where('sweep_pending', '=', false).execute();
  for (const dep of deps_ as DepositRow[]) {
    const order = await depositsRepo.order(e.tx, dep.order_id);
    // Paid by the deposit itself: that sweep returned any excess in the same transaction (its DepositReturned comes
    // after this OrderPaid in the range), so a second sweep would only spend gas.
    if (order.paid_by?.toLowerCase() === dep.address) continue;
    // An expired order proves that chain time at depth is past its deadline (the sweeper runs on the indexed chain
    // clock, orders/expire.ts), whatever the service's clock says: a deposit with the order's deadline returns now.
    const at = e.to === 'expired' ? new Date(Math.max(e.at.getTime(), order.deadline_at.getTime() + 1000)) : e.at;
    if (order.amount_received > 0n) await maybeSweep(deps, e.tx, dep, order, chainTime(deps, dep.chain_id, at));
  }
};
