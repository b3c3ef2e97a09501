import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import type { OrdersService } from '../orders/service.js';
import type { RouterClient } from '../settlements/router-client.js';

/** What the refunds service and its worker are built from. */
export type RefundsDeps = { db: Db; config: Config; chains: ChainsService; orders: OrdersService; router: RouterClient; logger: Logger };
