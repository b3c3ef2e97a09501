import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import type { KeysService, SessionActor } from '../keys/index.js';
import { onboardPlatform, type OnboardInput } from './onboard.js';
import { platformsRepo } from './repo.js';

export type { OnboardInput } from './onboard.js';

/** The platforms service: each operation lives in its own file; this only binds them to their dependencies. */
export function createPlatformsService(db: Db, config: Config, keys: KeysService) {
  return {
    onboardSelf: (actor: SessionActor, input: OnboardInput) => onboardPlatform({ db, config, keys }, actor, input),
    findByUser: (userId: string) => platformsRepo.findByUser(db, userId),
    async get(platformId: string) {
      const p = await platformsRepo.findById(db, platformId);
      if (!p) throw notFound('platform');
      return p;
    },
  };
}

export type PlatformsService = ReturnType<typeof createPlatformsService>;
