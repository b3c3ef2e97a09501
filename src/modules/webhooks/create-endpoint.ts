import { AppError } from '../../lib/errors.js';
import { newId, newSecret } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { WebhooksApiDeps } from './api-deps.js';
import { endpointsRepo } from './repo.js';
import { serializeEndpoint } from './serialize.js';

export const MAX_ENDPOINTS_PER_PLATFORM = 16;

export type CreateEndpointInput = { url: string; subscribed_events: string[]; description?: string };

/**
 * POST /v1/webhooks/endpoints. The URL is checked (SSRF policy) before anything is written; the platform row
 * is locked so concurrent creations cannot pass the per-platform limit together. The secret is sealed at rest.
 */
export async function createEndpoint(deps: WebhooksApiDeps, platformId: string, input: CreateEndpointInput) {
  await deps.checkUrl(input.url);
  const secret = newSecret('whsec');
  const row = await deps.db.transaction().execute(async (tx) => {
    await endpointsRepo.lockPlatform(tx, platformId);
    if ((await endpointsRepo.countLive(tx, platformId)) >= MAX_ENDPOINTS_PER_PLATFORM) {
      throw new AppError('conflict', `A platform may have at most ${MAX_ENDPOINTS_PER_PLATFORM} webhook endpoints; delete one first.`);
    }
    const inserted = await endpointsRepo.insert(tx, {
      id: newId('we'),
      platform_id: platformId,
      url: input.url,
      description: input.description ?? null,
      subscribed_events: JSON.stringify(input.subscribed_events),
      secret: deps.secrets.seal(secret),
      created_at: deps.clock.now(),
    });
    // Same transaction as the row: a retry with this Idempotency-Key after a crash gets this answer
    // (secret included, it is the same caller) instead of creating a second endpoint.
    await recordResponseInTx(tx, 201, serializeEndpoint(inserted, secret));
    return inserted;
  });
  return { row, secret };
}
