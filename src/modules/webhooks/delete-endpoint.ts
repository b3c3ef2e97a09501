import { notFound } from '../../lib/errors.js';
import type { WebhooksApiDeps } from './api-deps.js';
import { deliveriesRepo, endpointsRepo, type EndpointRow } from './repo.js';

/**
 * DELETE /v1/webhooks/endpoints/:id. Soft delete: the row stays for the delivery history; what was still pending
 * to it is failed.
 */
export async function deleteEndpoint(deps: Pick<WebhooksApiDeps, 'db' | 'clock'>, platformId: string, id: string): Promise<EndpointRow> {
  return deps.db.transaction().execute(async (tx) => {
    const row = await endpointsRepo.softDelete(tx, platformId, id, deps.clock.now());
    if (!row) throw notFound('webhook endpoint');
    await deliveriesRepo.failPendingForEndpoint(tx, id, 'endpoint deleted');
    return row;
  });
}
