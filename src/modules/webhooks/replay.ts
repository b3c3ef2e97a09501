import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { WebhooksApiDeps } from './api-deps.js';
import { getEndpoint } from './read-endpoints.js';
import { replayRepo } from './repo.js';
import { REPLAY_MAX_EVENTS } from './schemas.js';

/**
 * POST /v1/webhooks/endpoints/:id/replay. Re-delivers to one endpoint exactly the platform's events created in
 * [since, until) that it subscribes to (including events from before it existed), each due now with a fresh
 * retry schedule. Refused (nothing scheduled) for a disabled endpoint, an empty or inverted range, or more
 * than REPLAY_MAX_EVENTS events.
 */
export async function replayEvents(deps: Pick<WebhooksApiDeps, 'db' | 'clock'>, platformId: string, endpointId: string, range: { since: string; until: string }) {
  const endpoint = await getEndpoint(deps.db, platformId, endpointId);
  if (endpoint.disabled_at) {
    throw new AppError('invalid_state', `Cannot replay: endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason ?? 'disabled'}).`);
  }
  const since = new Date(range.since);
  const until = new Date(range.until);
  if (!(since < until)) throw new AppError('validation_failed', 'until must be later than since.', 'until');
  const subscribed = endpoint.subscribed_events as string[];
  return deps.db.transaction().execute(async (tx) => {
    const ids = await replayRepo.eventIds(tx, platformId, subscribed, since, until, REPLAY_MAX_EVENTS + 1);
    if (ids.length > REPLAY_MAX_EVENTS) {
      throw new AppError('validation_failed', `The range holds more than ${REPLAY_MAX_EVENTS} events; replay it in smaller ranges.`, 'until');
    }
    const now = deps.clock.now();
    for (let i = 0; i < ids.length; i += 500) {
      await replayRepo.schedule(tx, ids.slice(i, i + 500).map((ev) => ({
        id: newId('dlv'), event_id: ev.id, event_created_at: ev.created_at, endpoint_id: endpointId, platform_id: platformId, state: 'pending' as const, created_at: now,
      })));
    }
    const body = { object: 'webhook_replay' as const, endpoint_id: endpointId, since: since.toISOString(), until: until.toISOString(), events: ids.length };
    await recordResponseInTx(tx, 200, body);
    return body;
  });
}
