import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { keysRepo } from './repo.js';
import type { AuthenticatedKey } from './types.js';

/** last_used_at is written at most once a minute per key (and instance); the repo's own guard covers other instances. */
const TOUCH_EVERY_MS = 60_000;
const TOUCH_MEMORY = 10_000;
const IDENTITY_MEMORY = 10_000;

/**
 * What one instance remembers about keys. Only *when* a key was last written, never whether it is valid:
 * revocation is still read on every request. Without this, every authenticated request issued an UPDATE (a
 * second round trip and, on PGlite, a second turn of the single connection) that almost always changed nothing.
 * And which platform and kind a key hash belongs to, once a lookup found it valid: both columns are never
 * updated, so this can only go stale by the key being revoked, which `recall` leaves to the caller's own
 * statement to check (orders repo `signingContext`, `insertIfCurrent`). Keyed by the SHA-256, never the secret.
 */
export function createKeyMemory(db: Db, clock: Clock) {
  const touchedAt = new Map<string, number>();
  const identities = new Map<string, AuthenticatedKey>();
  return {
    /** Records a use of a key (throttled); a failed write is forgotten so the next use tries again. */
    touch(id: string) {
      const now = clock.ms();
      const last = touchedAt.get(id);
      if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
      if (touchedAt.size >= TOUCH_MEMORY) touchedAt.clear();
      touchedAt.set(id, now);
      keysRepo.touch(db, id, new Date(now)).catch(() => touchedAt.delete(id));
    },
    remember(digest: string, key: AuthenticatedKey) {
      if (identities.size >= IDENTITY_MEMORY) identities.clear();
      identities.set(digest, key);
    },
    identity: (digest: string): AuthenticatedKey | null => identities.get(digest) ?? null,
  };
}

export type KeyMemory = ReturnType<typeof createKeyMemory>;
