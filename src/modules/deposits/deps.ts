import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import type { SignPayOrder } from '../orders/deps.js';

/** What the deposit operations use, built once in index.ts. */
export type DepositsDeps = {
  db: Db; config: Config; chains: ChainsService; clock: Clock; logger: Logger; sign: SignPayOrder;
  /** The public session cache's `changing`: this process is about to change what the order's public read shows. */
  changing: (orderId: string) => void;
};
