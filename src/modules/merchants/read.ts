import type { Executor } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { notFound } from '../../lib/errors.js';
import { merchantsRepo, type MerchantRow } from './repo.js';
import { serializeMerchant } from './serialize.js';

/** GET /v1/merchants/:id, by id (mch_…) or, for convenience, by the platform's own external_id. Another platform's is 404. */
export async function getMerchant(db: Executor, platformId: string, idOrExternal: string): Promise<MerchantRow> {
  const row = idOrExternal.startsWith('mch_')
    ? await merchantsRepo.findById(db, platformId, idOrExternal)
    : await merchantsRepo.findByExternalId(db, platformId, idOrExternal);
  if (!row) throw notFound('merchant');
  return row;
}

/** GET /v1/merchants. */
export async function listMerchants(db: Executor, platformId: string, q: { limit: number; cursor?: string | undefined }) {
  const rows = await merchantsRepo.list(db, platformId, q.limit, decodeCursor(q.cursor));
  return toPage(rows, q.limit, serializeMerchant);
}
