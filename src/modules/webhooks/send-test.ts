import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { eventsRepo } from '../events/repo.js';
import { serializeEvent } from '../events/serialize.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { WebhooksApiDeps } from './api-deps.js';
import { getEndpoint } from './read-endpoints.js';
import { deliveriesRepo } from './repo.js';
import { endpointStatus, serializeDelivery } from './serialize.js';
import { TEST_EVENT_TYPE, TEST_EVENT_TYPES, testEventObject } from './test-objects.js';
import { toolsRepo } from './tools-repo.js';

export { TEST_EVENT_TYPE, TEST_EVENT_TYPES } from './test-objects.js';
/** Each test event is an outbound POST we make for the caller: bounded per platform. */
export const TEST_PINGS_PER_MINUTE = 30;

/** A type the service does not send is a 422 naming them all (a typo is not sent as a ping). */
function checkType(type: string) {
  if (!TEST_EVENT_TYPES.includes(type)) {
    throw new AppError('validation_failed', `type "${type}" is not an event type this service sends; one of: ${TEST_EVENT_TYPES.join(', ')}`, 'type');
  }
}

/**
 * POST /v1/webhooks/endpoints/:id/test. A test event of `type` (default `test.ping`; any other type carries a
 * sample object with `test: true`, testEventObject) listed with the platform's events, and one delivery to this
 * endpoint only, due now, signed and recorded like any other (the deliverer sends it). A paused endpoint receives
 * it when resumed; a disabled one is 409.
 */
export async function sendTestEvent(deps: WebhooksApiDeps, platformId: string, endpointId: string, type = TEST_EVENT_TYPE) {
  checkType(type);
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
    const data = { object: testEventObject(type, endpointId) };
    const event = await eventsRepo.insert(tx, { id: newId('evt'), platform_id: platformId, type, data: JSON.stringify(data), created_at: now });
    await eventsRepo.insertDeliveries(tx, [{ id: deliveryId, event_id: event.id, endpoint_id: endpointId, platform_id: platformId, state: 'pending', created_at: now, event_created_at: event.created_at }]);
    const body = serializeDelivery((await deliveriesRepo.findView(tx, platformId, deliveryId))!);
    // With the rows: a retry with this Idempotency-Key after a crash answers this delivery instead of sending a second ping.
    await recordResponseInTx(tx, 201, body);
    return body;
  });
  deps.wake?.();
  return view;
}

/**
 * POST /v1/events/test: a test event of `type` for the whole platform, as a real one of that type would be: listed
 * with its events (what `trisettle listen` forwards) and delivered to every endpoint subscribed to the type. Its
 * object is a sample (`test: true`). The same per-platform bound as endpoint test events.
 */
export async function emitTestEvent(deps: WebhooksApiDeps, platformId: string, type: string) {
  checkType(type);
  if ((await toolsRepo.recentTestPings(deps.db, platformId)) >= TEST_PINGS_PER_MINUTE) {
    throw new AppError('rate_limited', `At most ${TEST_PINGS_PER_MINUTE} test events a minute per platform.`);
  }
  const now = deps.clock.now();
  const event = await deps.db.transaction().execute(async (tx) => {
    const row = await eventsRepo.insert(tx, { id: newId('evt'), platform_id: platformId, type, data: JSON.stringify({ object: testEventObject(type, '') }), created_at: now });
    const endpointIds = await eventsRepo.subscribedEndpointIds(tx, platformId, type);
    await eventsRepo.insertDeliveries(tx, endpointIds.map((endpointId) => ({ id: newId('dlv'), event_id: row.id, endpoint_id: endpointId, platform_id: platformId, state: 'pending' as const, created_at: now, event_created_at: row.created_at })));
    const body = serializeEvent(row);
    // With the rows: a retry with this Idempotency-Key after a crash answers this event instead of emitting a second.
    await recordResponseInTx(tx, 201, body);
    return body;
  });
  deps.wake?.();
  return event;
}
