import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { eventsRepo } from '../events/repo.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { WebhooksApiDeps } from './api-deps.js';
import { getEndpoint } from './read-endpoints.js';
import { deliveriesRepo } from './repo.js';
import { endpointStatus, serializeDelivery } from './serialize.js';
import { toolsRepo } from './tools-repo.js';

export const TEST_EVENT_TYPE = 'test.ping';
/** Each test event is an outbound POST we make for the caller: bounded per platform. */
export const TEST_PINGS_PER_MINUTE = 30;

/**
 * POST /v1/webhooks/endpoints/:id/test. A `test.ping` event (listed with the platform's events) and one
 * delivery to this endpoint only, due now, signed and recorded like any other (the deliverer sends it). A
 * paused endpoint receives it when resumed; a disabled one is 409.
 */
export async function sendTestEvent(deps: WebhooksApiDeps, platformId: string, endpointId: string) {
  const endpoint = await getEndpoint(deps.db, platformId, endpointId);
  if (endpointStatus(endpoint) === 'disabled') {
    throw new AppError('invalid_state', `Cannot send a test event: endpoint ${endpointId} is disabled (${endpoint.disabled_reason ?? 'disabled'}).`);
  }
  if ((await toolsRepo.recentTestPings(deps.db, platformId)) >= TEST_PINGS_PER_MINUTE) {
    throw new AppError('rate_limited', `At most ${TEST_PINGS_PER_MINUTE} test events a minute per platform.`);
  }
  const now = deps.clock.now();
  const deliveryId = newId('dlv');
  const view = await deps.db.transaction().execute(async (tx) => {
    const data = { object: { object: 'test_ping', endpoint_id: endpointId, message: 'A test event sent from the Trisettle API.' } };
    const event = await eventsRepo.insert(tx, { id: newId('evt'), platform_id: platformId, type: TEST_EVENT_TYPE, data: JSON.stringify(data), created_at: now });
    await eventsRepo.insertDeliveries(tx, [{ id: deliveryId, event_id: event.id, endpoint_id: endpointId, platform_id: platformId, state: 'pending', created_at: now }]);
    const body = serializeDelivery((await deliveriesRepo.findView(tx, platformId, deliveryId))!);
    // With the rows: a retry with this Idempotency-Key after a crash answers this delivery instead of sending a second ping.
    await recordResponseInTx(tx, 201, body);
    return body;
  });
  deps.wake?.();
  return view;
}
