import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import type { RouterClient } from './router-client.js';

/** What the settlements service is built from. The wall clock only stamps rows; which orders are due is the chain's clock. */
export type SettlementsDeps = { db: Db; config: Config; chains: ChainsService; router: RouterClient; logger: Logger; clock: Clock };
