import type { PublicClient } from 'viem';
import type { Db } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import type { ChainsService } from '../chains/service.js';
import type { MerchantsService } from '../merchants/index.js';
import type { OrderRow } from '../orders/repo.js';
import type { OrdersService } from '../orders/index.js';
import { merchantTimeline, orderTimeline, refundTimeline, type TimelineDeps } from './build.js';
import { createPaymentMethods } from './payment-method.js';
import { timelineRepo } from './repo.js';

/** Timelines of orders, refunds and merchants, and how an order was paid (read-only over the other modules' rows). */
export function createTimelines(opts: { db: Db; chains: ChainsService; orders: Pick<OrdersService, 'get'>; merchants: Pick<MerchantsService, 'get'> }) {
  const clientOf = (chainId: number): PublicClient | null => opts.chains.list().find((c) => c.chainId === chainId)?.publicClient ?? null;
  const deps: TimelineDeps = { db: opts.db, explorer: (id) => opts.chains.list().find((c) => c.chainId === id)?.blockExplorerUrl ?? null };
  const paymentMethodOf = createPaymentMethods({ clientOf });
  return {
    /** payment_method and payer: what GET /v1/orders/:id adds to the order object. */
    async paymentOf(order: OrderRow) {
      return { payment_method: await paymentMethodOf(opts.db, order), payer: order.paid_by };
    },
    order: async (platformId: string, id: string) => orderTimeline(deps, platformId, await opts.orders.get(platformId, id)),
    async refund(platformId: string, id: string) {
      const refund = await timelineRepo.findRefund(opts.db, platformId, id);
      if (!refund) throw notFound('refund');
      return refundTimeline(deps, platformId, refund, await opts.orders.get(platformId, refund.order_id));
    },
    merchant: async (platformId: string, id: string) => merchantTimeline(deps, platformId, await opts.merchants.get(platformId, id)),
  };
}

export type Timelines = ReturnType<typeof createTimelines>;
