import type { Address } from 'viem';
import type { Db } from '../../db/client.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { PlatformsService } from '../platforms/index.js';
import { insertMerchant } from './insert.js';
import type { MerchantRow } from './repo.js';
import { serializeMerchant } from './serialize.js';

export type CreateMerchantInput = { external_id: string; name: string; merchant_wallet: Address; chain_id: number; reserve_bps?: number | undefined };

/** POST /v1/onboarding/merchants: a merchant whose wallet the platform already knows; the reserve defaults to the platform's. */
export async function createMerchant(deps: { db: Db; platforms: PlatformsService }, platformId: string, input: CreateMerchantInput): Promise<MerchantRow> {
  const platform = await deps.platforms.get(platformId);
  return deps.db.transaction().execute(async (tx) => {
    const row = await insertMerchant(tx, platformId, {
      externalId: input.external_id,
      name: input.name,
      wallet: input.merchant_wallet,
      chainId: input.chain_id,
      reserveBps: input.reserve_bps ?? platform.default_reserve_bps,
    });
    await recordResponseInTx(tx, 201, serializeMerchant(row));
    return row;
  });
}
