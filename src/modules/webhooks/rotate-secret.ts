import { notFound } from '../../lib/errors.js';
import { newSecret } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { WebhooksApiDeps } from './api-deps.js';
import { endpointsRepo } from './repo.js';
import { serializeEndpoint } from './serialize.js';

/** After a roll the previous secret keeps signing this long, so receivers can swap without dropping events. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * POST /v1/webhooks/endpoints/:id/roll-secret. The answer commits with the roll: a retry after a crash
 * replays this secret rather than rolling twice, which would drop the secret receivers still verify with
 * (previous_secret, valid PREVIOUS_SECRET_TTL_MS from now on the service clock).
 */
export async function rotateSecret(deps: WebhooksApiDeps, platformId: string, id: string) {
  const secret = newSecret('whsec');
  const previousUntil = new Date(deps.clock.ms() + PREVIOUS_SECRET_TTL_MS);
  return deps.db.transaction().execute(async (tx) => {
    const row = await endpointsRepo.rollSecret(tx, platformId, id, deps.secrets.seal(secret), previousUntil);
    if (!row) throw notFound('webhook endpoint');
    await recordResponseInTx(tx, 200, serializeEndpoint(row, secret));
    return { row, secret };
  });
}
