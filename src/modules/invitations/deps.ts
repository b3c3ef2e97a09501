import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { ChainsService } from '../chains/service.js';
import type { MerchantsService } from '../merchants/index.js';
import type { PlatformsService } from '../platforms/index.js';

/** What the invitations service is built from. Invitation expiry is the service clock's (no money depends on it). */
export type InvitationsDeps = { db: Db; config: Config; platforms: PlatformsService; merchants: MerchantsService; chains: ChainsService; clock: Clock };
