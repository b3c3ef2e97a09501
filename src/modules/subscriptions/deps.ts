import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import type { OrdersService } from '../orders/index.js';
import type { TokenDomains } from '../relay/token-domain.js';

/** What the subscription operations use; each takes only what it needs. `wake` runs the operator sender now. */
export type SubscriptionsDeps = {
  db: Db; config: Config; chains: ChainsService; clock: Clock; logger: Logger;
  orders: Pick<OrdersService, 'prepareCharge' | 'insertPrepared' | 'transition'>;
  tokenDomains: TokenDomains;
  wake: () => void;
};
