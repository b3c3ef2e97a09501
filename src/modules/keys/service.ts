import type { Db, Executor } from '../../db/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId, newSecret, safeEqual, sha256Hex } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { keysRepo, type ApiKeyRow } from './repo.js';
import { serializeKey } from './serialize.js';

export type KeyKind = 'secret' | 'publishable';
export type AuthenticatedKey = { keyId: string; platformId: string; kind: KeyKind };

const hint = (raw: string) => `${raw.slice(0, raw.indexOf('_', 3) + 1)}…${raw.slice(-4)}`;

/** last_used_at is written at most once a minute per key (and instance); the repo's own guard covers other instances. */
const TOUCH_EVERY_MS = 60_000;
const TOUCH_MEMORY = 10_000;
const IDENTITY_MEMORY = 10_000;
/** What an API key looks like; anything else is refused before it is hashed or looked up. */
const KEY_FORMAT = /^(sk|pk)_live_[0-9A-Za-z]{16,64}$/;

export function createKeysService(db: Db) {
  // Only *when* a key was last written is remembered here, never whether it is valid: revocation is still
  // read on every request. Without this, every authenticated request issued an UPDATE (a second round trip
  // and, on PGlite, a second turn of the single connection) that almost always changed nothing.
  const touchedAt = new Map<string, number>();
  function touch(id: string, now: number) {
    const last = touchedAt.get(id);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    if (touchedAt.size >= TOUCH_MEMORY) touchedAt.clear();
    touchedAt.set(id, now);
    keysRepo.touch(db, id, new Date(now)).catch(() => touchedAt.delete(id));
  }

  // Which platform and kind a key hash belongs to, once a lookup found it valid. Both columns are never
  // updated, so this can only go stale by the key being revoked, which `recall` leaves to the caller's own
  // statement to check (orders repo `signingContext`, `insertIfCurrent`). Keyed by the SHA-256, never by the secret itself.
  const identities = new Map<string, AuthenticatedKey>();
  function remember(digest: string, key: AuthenticatedKey) {
    if (identities.size >= IDENTITY_MEMORY) identities.clear();
    identities.set(digest, key);
  }

  async function issue(tx: Executor, platformId: string, kind: KeyKind) {
    const raw = newSecret(kind === 'secret' ? 'sk_live' : 'pk_live');
    const row = await keysRepo.insert(tx, {
      id: newId('key'),
      platform_id: platformId,
      kind,
      key_hash: sha256Hex(raw),
      key_hint: hint(raw),
      // Publishable keys are meant to be embedded in pages; only secret keys are kept as hashes alone.
      publishable_key: kind === 'publishable' ? raw : null,
    });
    return { row, raw };
  }

  return {
    issue,

    /**
     * Secret keys are looked up by their SHA-256 and the stored hash is compared in constant time.
     * A revoked key stops working on the next request: validity is never cached (only the key's identity,
     * for `recall`).
     */
    async authenticate(raw: string): Promise<AuthenticatedKey | null> {
      if (!KEY_FORMAT.test(raw)) return null;
      const digest = sha256Hex(raw);
      const row = await keysRepo.findByHash(db, digest);
      if (!row || !safeEqual(row.key_hash, digest) || row.revoked_at) return null;
      touch(row.id, Date.now());
      const key: AuthenticatedKey = { keyId: row.id, platformId: row.platform_id, kind: row.kind };
      remember(digest, key);
      return key;
    },

    /**
     * Who a key was the last time `authenticate` found it valid on this instance, without reading it, or
     * null. NOT proof that it is still valid: whoever uses this must check the key is unrevoked in the same
     * statement that acts on it (api/middleware/auth.ts allows it only for such routes).
     */
    recall(raw: string): AuthenticatedKey | null {
      if (!KEY_FORMAT.test(raw)) return null;
      return identities.get(sha256Hex(raw)) ?? null;
    },

    /** Records a use of a key whose validity a statement of its caller has just confirmed (throttled). */
    touched(keyId: string) {
      touch(keyId, Date.now());
    },

    list: (platformId: string) => keysRepo.listForPlatform(db, platformId),

    async revoke(platformId: string, keyId: string): Promise<ApiKeyRow> {
      const revoked = await keysRepo.revoke(db, platformId, keyId);
      if (revoked) return revoked;
      const existing = await keysRepo.findForPlatform(db, platformId, keyId);
      if (!existing) throw notFound('key');
      return existing; // already revoked: revoking again changes nothing
    },

    /** Rolls a new secret key; existing keys keep working until revoked, so integrators can swap without downtime. */
    async roll(platformId: string) {
      // The new key is shown once: its answer commits with it, so a retry after a crash replays it rather
      // than minting a second key and leaving the first one active and unknown to anybody.
      return db.transaction().execute(async (tx) => {
        const { row, raw } = await issue(tx, platformId, 'secret');
        await recordResponseInTx(tx, 201, serializeKey(row, raw));
        return { row, secretKey: raw };
      });
    },

    assertKind(kind: string): asserts kind is KeyKind {
      if (kind !== 'secret' && kind !== 'publishable') throw new AppError('validation_failed', 'unknown key kind', 'kind');
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
