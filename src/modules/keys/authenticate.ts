import type { Db } from '../../db/client.js';
import { safeEqual, sha256Hex } from '../../lib/ids.js';
import type { KeyMemory } from './memory.js';
import { keysRepo } from './repo.js';
import type { AuthenticatedKey } from './types.js';

/** What an API key looks like; anything else is refused before it is hashed or looked up. */
export const KEY_FORMAT = /^(sk|pk)_live_[0-9A-Za-z]{16,64}$/;

/**
 * Every authenticated request. Keys are looked up by their SHA-256 and the stored hash is compared in constant
 * time. A revoked key stops working on the next request: validity is never cached (only the key's identity,
 * for `recall`).
 */
export async function authenticateKey(deps: { db: Db; memory: KeyMemory }, raw: string): Promise<AuthenticatedKey | null> {
  if (!KEY_FORMAT.test(raw)) return null;
  const digest = sha256Hex(raw);
  const row = await keysRepo.findByHash(deps.db, digest);
  if (!row || !safeEqual(row.key_hash, digest) || row.revoked_at) return null;
  deps.memory.touch(row.id);
  const key: AuthenticatedKey = { keyId: row.id, platformId: row.platform_id, kind: row.kind };
  deps.memory.remember(digest, key);
  return key;
}

/**
 * Who a key was the last time `authenticateKey` found it valid on this instance, without reading it, or null.
 * NOT proof that it is still valid: whoever uses this must check the key is unrevoked in the same statement
 * that acts on it (api/middleware/auth.ts allows it only for such routes).
 */
export function recallKey(memory: KeyMemory, raw: string): AuthenticatedKey | null {
  if (!KEY_FORMAT.test(raw)) return null;
  return memory.identity(sha256Hex(raw));
}
