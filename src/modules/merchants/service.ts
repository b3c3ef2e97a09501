import type { Address } from 'viem';
import type { Db, Executor } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { emitEvent } from '../events/service.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { PlatformsService } from '../platforms/service.js';
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

export function createMerchantsService(db: Db, platforms: PlatformsService) {
  /** Inside the caller's transaction; the merchant is active at once (SPEC §3). */
  async function insert(tx: Executor, platformId: string, m: NewMerchant): Promise<MerchantRow> {
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

  return {
    insert,

    async create(platformId: string, input: { external_id: string; name: string; merchant_wallet: Address; chain_id: number; reserve_bps?: number | undefined }) {
      const platform = await platforms.get(platformId);
      return db.transaction().execute(async (tx) => {
        const row = await insert(tx, platformId, {
          externalId: input.external_id,
          name: input.name,
          wallet: input.merchant_wallet,
          chainId: input.chain_id,
          reserveBps: input.reserve_bps ?? platform.default_reserve_bps,
        });
        await recordResponseInTx(tx, 201, serializeMerchant(row));
        return row;
      });
    },

    /** By id (mch_…) or, for convenience, by the platform's own external_id. Another platform's is 404. */
    async get(platformId: string, idOrExternal: string, executor: Executor = db): Promise<MerchantRow> {
      const row = idOrExternal.startsWith('mch_')
        ? await merchantsRepo.findById(executor, platformId, idOrExternal)
        : await merchantsRepo.findByExternalId(executor, platformId, idOrExternal);
      if (!row) throw notFound('merchant');
      return row;
    },

    findByExternalId: (platformId: string, externalId: string, executor: Executor = db) =>
      merchantsRepo.findByExternalId(executor, platformId, externalId),

    async list(platformId: string, q: { limit: number; cursor?: string | undefined }) {
      const rows = await merchantsRepo.list(db, platformId, q.limit, decodeCursor(q.cursor));
      return toPage(rows, q.limit, serializeMerchant);
    },
  };
}

export type MerchantsService = ReturnType<typeof createMerchantsService>;
