import { AppError } from '../../lib/errors.js';
import type { WebhooksApiDeps } from './api-deps.js';
import { getEndpoint } from './read-endpoints.js';
import { endpointStatus } from './serialize.js';
import { toolsRepo } from './tools-repo.js';

/**
 * POST /v1/webhooks/endpoints/:id/pause. A paused endpoint gets no attempts (the deliverer's claim skips it);
 * its deliveries stay pending, new events still queue for it, and nothing fails or disables meanwhile (no
 * attempt, no failure run). Pausing a paused endpoint answers it as it is; a disabled one is 409: its
 * deliveries were failed when it was disabled, there is nothing to hold.
 */
export async function pauseEndpoint(deps: WebhooksApiDeps, platformId: string, id: string) {
  const paused = await toolsRepo.pause(deps.db, platformId, id, deps.clock.now());
  if (paused) return paused;
  const current = await getEndpoint(deps.db, platformId, id);
  if (endpointStatus(current) === 'disabled') {
    throw new AppError('invalid_state', `Cannot pause endpoint ${id}: it is disabled (${current.disabled_reason ?? 'disabled'}).`);
  }
  return current;
}

/** POST /v1/webhooks/endpoints/:id/resume. Deliveries due while it was paused go out in their order. */
export async function resumeEndpoint(deps: WebhooksApiDeps, platformId: string, id: string) {
  const resumed = await toolsRepo.resume(deps.db, platformId, id);
  if (resumed) return resumed;
  const current = await getEndpoint(deps.db, platformId, id);
  if (endpointStatus(current) === 'disabled') {
    throw new AppError('invalid_state', `Cannot resume endpoint ${id}: it is disabled (${current.disabled_reason ?? 'disabled'}).`);
  }
  return current;
}
