import type { Db, Executor } from '../../db/client.js';
import type { PlatformsService } from '../platforms/index.js';
import { createMerchant, type CreateMerchantInput } from './create.js';
import { insertMerchant } from './insert.js';
import { getMerchant, listMerchants } from './read.js';
import { merchantsRepo } from './repo.js';

export type { NewMerchant } from './insert.js';

/** The merchants service: each operation lives in its own file; this only binds them to their dependencies. */
export function createMerchantsService(db: Db, platforms: PlatformsService) {
  return {
    insert: insertMerchant,
    create: (platformId: string, input: CreateMerchantInput) => createMerchant({ db, platforms }, platformId, input),
    get: (platformId: string, idOrExternal: string, executor: Executor = db) => getMerchant(executor, platformId, idOrExternal),
    findByExternalId: (platformId: string, externalId: string, executor: Executor = db) => merchantsRepo.findByExternalId(executor, platformId, externalId),
    list: (platformId: string, q: { limit: number; cursor?: string | undefined }) => listMerchants(db, platformId, q),
  };
}

export type MerchantsService = ReturnType<typeof createMerchantsService>;
