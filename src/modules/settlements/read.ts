import type { Db } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { notFound } from '../../lib/errors.js';
import { settlementsRepo, type ItemRow } from './repo.js';
import { serializeSettlement } from './serialize.js';

/** GET /v1/settlements: batches carrying the platform's orders, newest first, each with the platform's items only. */
export async function listSettlements(db: Db, platformId: string, q: { limit: number; cursor?: string | undefined }) {
  const rows = await settlementsRepo.listForPlatform(db, platformId, q.limit, decodeCursor(q.cursor));
  const items = await settlementsRepo.items(db, rows.map((r) => r.id), platformId);
  const by = new Map<string, ItemRow[]>();
  for (const i of items) by.set(i.settlement_id, [...(by.get(i.settlement_id) ?? []), i]);
  return toPage(rows, q.limit, (s) => serializeSettlement(s, by.get(s.id) ?? []));
}

/** GET /v1/settlements/:id: 404 unless the batch carries one of the platform's orders. */
export async function getSettlement(db: Db, platformId: string, id: string) {
  const s = await settlementsRepo.findForPlatform(db, platformId, id);
  if (!s) throw notFound('settlement');
  return serializeSettlement(s, await settlementsRepo.items(db, [s.id], platformId));
}
