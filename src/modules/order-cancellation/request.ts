import { encodeFunctionData, type Address, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import type { Db } from '../../db/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { describeError } from '../../lib/redact-urls.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { RouterClient } from '../settlements/router-client.js';
import { orderCancellationRepo, type CancellableOrder } from './repo.js';

const notPending = (o: CancellableOrder) =>
  new AppError('invalid_state', `Order ${o.id} is ${o.state}; only a pending_payment order can be failed.`);

/**
 * POST /_/orders/:id/fail. Refused (409) when the order is no longer pending_payment or the router already
 * shows it paid at the latest block (the payment was mined first: the chain wins). Otherwise the request is
 * recorded and `cancelOrders([id])` enqueued for the operator sender, in one transaction; the order stays
 * pending_payment until the indexer applies PayOrderCancelled. Asking again while pending changes nothing.
 */
export async function requestOrderCancel(deps: { db: Db; router: RouterClient; logger: Logger; clock: Clock }, id: string, reason: string): Promise<CancellableOrder> {
  const { db, router, logger } = deps;
  const order = await orderCancellationRepo.find(db, id);
  if (!order) throw notFound('order');
  if (order.state !== 'pending_payment') throw notPending(order);
  if (order.cancel_requested_at) return order; // already asked: nothing more to send
  if (await paidOnChain(router, logger, order)) {
    throw new AppError('invalid_state', `Order ${order.id} is already paid on chain (payment mined first); it will be confirmed.`);
  }
  return db.transaction().execute(async (tx) => {
    const locked = (await orderCancellationRepo.lock(tx, id))!;
    if (locked.state !== 'pending_payment') throw notPending(locked);
    if (locked.cancel_requested_at) return locked;
    await enqueueOperatorTx(tx, {
      chainId: locked.chain_id, purpose: 'order_cancel', refId: locked.id, to: locked.pay_to as Hex,
      calldata: encodeFunctionData({ abi: paymentRouterAbi, functionName: 'cancelOrders', args: [[locked.onchain_id as Hex]] }),
    });
    return orderCancellationRepo.markRequested(tx, locked.id, reason, deps.clock.now());
  });
}

/**
 * The early answer only: when the RPC cannot be read the cancellation is still sent, and the chain decides
 * (cancelOrders skips an order already paid, whose OrderPaid then confirms it).
 */
async function paidOnChain(router: RouterClient, logger: Logger, o: CancellableOrder): Promise<boolean> {
  try {
    return await router.orderPaid(o.chain_id, o.pay_to as Address, o.onchain_id as Hex);
  } catch (err) {
    logger.warn({ order_id: o.id, err: describeError(err) }, 'could not read the order on chain; sending the cancellation anyway (the chain decides)');
    return false;
  }
}

/** The `cancellation` field the fail route adds to the order. */
export function cancellationOf(o: CancellableOrder) {
  if (!o.cancel_requested_at) return null;
  const state = o.state === 'failed' ? 'cancelled' : o.state === 'pending_payment' ? 'pending' : 'too_late';
  return { state, reason: o.cancel_reason, requested_at: o.cancel_requested_at.toISOString() } as const;
}
