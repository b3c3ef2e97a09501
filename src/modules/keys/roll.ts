import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { issueKey } from './issue.js';
import { keysRepo } from './repo.js';
import { serializeKey } from './serialize.js';
import { MAX_ACTIVE_KEYS, type SessionActor } from './types.js';

/**
 * POST /v1/developers/keys. A new secret key; existing keys keep working until revoked, so integrators can swap
 * without downtime. Only a dashboard session may call it (the type says so; the route guard answers a key 403
 * session_required): a leaked secret key must not be able to mint keys that outlive it.
 *
 * The platform row is locked for the count and the insert, so concurrent requests cannot pass
 * MAX_ACTIVE_KEYS together. The new key is shown once: its answer commits with it, so a retry after a crash
 * replays it rather than minting a second key and leaving the first one active and unknown to anybody.
 */
export async function rollKey(deps: { db: Db; clock: Clock }, platformId: string, actor: SessionActor) {
  return deps.db.transaction().execute(async (tx) => {
    await keysRepo.lockPlatform(tx, platformId);
    if ((await keysRepo.countActive(tx, platformId)) >= MAX_ACTIVE_KEYS) {
      throw new AppError('key_limit_reached', `A platform may have at most ${MAX_ACTIVE_KEYS} active API keys (secret and publishable); revoke one first.`);
    }
    const { row, raw } = await issueKey(tx, { platformId, kind: 'secret', actor, action: 'key.rolled', now: deps.clock.now() });
    await recordResponseInTx(tx, 201, serializeKey(row, raw));
    return { row, secretKey: raw };
  });
}
