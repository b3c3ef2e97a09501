import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import type { OrderRow } from '../orders/repo.js';
import type { RouterClient } from '../settlements/router-client.js';

/**
 * The one thing refunds need from orders: moving an order by its transition table (with its event and the
 * public-session notice). Declared by shape so this module does not depend on how orders is assembled.
 */
export type OrderMover = {
  transition(tx: Executor, order: OrderRow, trigger: 'refund_full' | 'refund_partial', set: { refunded_amount: bigint; reserve_remaining: bigint }): Promise<OrderRow>;
};

/** What the refunds service and its worker are built from. */
export type RefundsDeps = { db: Db; config: Config; chains: ChainsService; orders: OrderMover; router: RouterClient; logger: Logger; clock: Clock };
