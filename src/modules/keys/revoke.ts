import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, notFound } from '../../lib/errors.js';
import { recordKeyEvent } from './audit.js';
import { keysRepo, type ApiKeyRow } from './repo.js';
import type { KeyActor } from './types.js';

/**
 * POST /v1/developers/keys/:id/revoke. A session may revoke any key of its platform; a secret key only itself
 * (its holder can always stop it, but one leaked key cannot lock the owner out by revoking the others).
 * Another platform's key, or none, is 404 for both. Revoking an already revoked key changes nothing (its first
 * revoked_at stays, no audit row); a revocation and its audit row commit together.
 */
export async function revokeKey(deps: { db: Db; clock: Clock }, platformId: string, keyId: string, actor: KeyActor): Promise<ApiKeyRow> {
  if (actor.kind === 'secret_key' && actor.keyId !== keyId) {
    if (!(await keysRepo.findForPlatform(deps.db, platformId, keyId))) throw notFound('key');
    throw new AppError('forbidden', 'A secret key may revoke only itself. Revoke other keys from the dashboard (signed in).');
  }
  return deps.db.transaction().execute(async (tx) => {
    const now = deps.clock.now();
    const revoked = await keysRepo.revoke(tx, platformId, keyId, now);
    if (revoked) {
      await recordKeyEvent(tx, revoked, 'key.revoked', actor, now);
      return revoked;
    }
    const existing = await keysRepo.findForPlatform(tx, platformId, keyId);
    if (!existing) throw notFound('key');
    return existing;
  });
}
