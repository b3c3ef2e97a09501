import type { Db } from '../../db/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { deliveriesRepo, endpointsRepo } from './repo.js';
import { serializeDelivery } from './serialize.js';

/**
 * POST /v1/webhooks/deliveries/:id/redeliver. Sends the event again now, whatever the delivery's state, with a
 * fresh retry schedule (DELIVERY_TRANSITIONS.redeliver, in the repo). The endpoint must still be live
 * (deleted → 404) and enabled (disabled → 409); an attempt in flight → 409.
 */
export async function redeliver(db: Db, platformId: string, deliveryId: string) {
  const current = await deliveriesRepo.findView(db, platformId, deliveryId);
  if (!current) throw notFound('webhook delivery');
  const endpoint = await endpointsRepo.findLive(db, platformId, current.endpoint_id);
  if (!endpoint) throw notFound('webhook delivery');
  if (endpoint.disabled_at) {
    throw new AppError('invalid_state', `Cannot redeliver: endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason ?? 'disabled'}).`);
  }
  const updated = await deliveriesRepo.reschedule(db, platformId, deliveryId);
  if (!updated) throw new AppError('invalid_state', 'Cannot redeliver: an attempt of this delivery is in flight; try again in a few seconds.');
  return serializeDelivery((await deliveriesRepo.findView(db, platformId, deliveryId))!);
}
