import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { notFound } from '../../lib/errors.js';
import { keysRepo, type ApiKeyRow } from './repo.js';

/** POST /v1/developers/keys/:id/revoke. Revoking an already revoked key changes nothing (its first revoked_at stays); another platform's key is 404. */
export async function revokeKey(deps: { db: Db; clock: Clock }, platformId: string, keyId: string): Promise<ApiKeyRow> {
  const revoked = await keysRepo.revoke(deps.db, platformId, keyId, deps.clock.now());
  if (revoked) return revoked;
  const existing = await keysRepo.findForPlatform(deps.db, platformId, keyId);
  if (!existing) throw notFound('key');
  return existing;
}
