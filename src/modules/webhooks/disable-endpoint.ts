import type { Tx } from '../../db/client.js';
import { emitEvent } from '../events/service.js';
import { deliveriesRepo, endpointsRepo } from './repo.js';
import { serializeEndpoint } from './serialize.js';

/**
 * Disables an endpoint from the deliverer (410 Gone, or failing too long): its pending deliveries fail, and
 * the platform hears of it through the outbox, in the transaction of the attempt that decided it. False when
 * it was disabled or deleted already.
 */
export async function disableEndpoint(tx: Tx, e: { endpointId: string; platformId: string; reason: string; at: Date }): Promise<boolean> {
  const disabled = await endpointsRepo.disableReturning(tx, e.endpointId, e.reason, e.at);
  if (!disabled) return false;
  await deliveriesRepo.failPendingForEndpoint(tx, e.endpointId, 'endpoint disabled: ' + e.reason);
  await emitEvent(tx, { platformId: e.platformId, type: 'webhook_endpoint.disabled', data: { object: serializeEndpoint(disabled) } });
  return true;
}
