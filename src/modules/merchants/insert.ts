import type { Address } from 'viem';
import type { Executor } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { emitEvent } from '../events/service.js';
import { merchantsRepo, type MerchantRow } from './repo.js';
import { serializeMerchant } from './serialize.js';

export type NewMerchant = {
  externalId: string;
  name: string;
  wallet: Address;
  chainId: number;
  reserveBps: number;
  invitationId?: string | null;
};

/**
 * Inside the caller's transaction (POST /v1/onboarding/merchants, or a completed invitation); the merchant is active at
 * once (SPEC §3) and merchant.created is written in the same transaction. A taken external_id is 409.
 */
export async function insertMerchant(tx: Executor, platformId: string, m: NewMerchant): Promise<MerchantRow> {
  const row = await merchantsRepo.insert(tx, {
    id: newId('mch'),
    platform_id: platformId,
    external_id: m.externalId,
    name: m.name,
    merchant_wallet: m.wallet,
    chain_id: m.chainId,
    reserve_bps: m.reserveBps,
    state: 'active',
    invitation_id: m.invitationId ?? null,
  });
  if (!row) throw new AppError('conflict', `A merchant with external_id '${m.externalId}' already exists on this platform.`, 'external_id');
  await emitEvent(tx, { platformId, type: 'merchant.created', data: { object: serializeMerchant(row) } });
  return row;
}
