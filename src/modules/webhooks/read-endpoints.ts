import type { Db } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { notFound } from '../../lib/errors.js';
import { deliveriesRepo, endpointsRepo, type EndpointRow } from './repo.js';
import { serializeDelivery, serializeEndpoint } from './serialize.js';

export type PageQuery = { limit: number; cursor?: string };

/** GET /v1/webhooks/endpoints/:id: a live (not deleted) endpoint of the platform, else 404. */
export async function getEndpoint(db: Db, platformId: string, id: string): Promise<EndpointRow> {
  const row = await endpointsRepo.findLive(db, platformId, id);
  if (!row) throw notFound('webhook endpoint');
  return row;
}

/** GET /v1/webhooks/endpoints: newest first, secrets never included. */
export async function listEndpoints(db: Db, platformId: string, q: PageQuery) {
  const rows = await endpointsRepo.list(db, platformId, { limit: q.limit, cursor: decodeCursor(q.cursor) });
  return toPage(rows, q.limit, (r) => serializeEndpoint(r));
}

/** GET /v1/webhooks/endpoints/:id/deliveries. */
export async function listDeliveries(db: Db, platformId: string, endpointId: string, q: PageQuery) {
  await getEndpoint(db, platformId, endpointId);
  const rows = await deliveriesRepo.listForEndpoint(db, platformId, endpointId, { limit: q.limit, cursor: decodeCursor(q.cursor) });
  return toPage(rows, q.limit, serializeDelivery);
}
