import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';

/** What the charge-later requests use. `wake` runs the operator sender now (it also polls). */
export type AuthorizationsDeps = { db: Db; chains: ChainsService; clock: Clock; logger: Logger; wake: () => void };
