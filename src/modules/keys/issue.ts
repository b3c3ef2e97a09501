import type { Executor } from '../../db/client.js';
import { newId, newSecret, sha256Hex } from '../../lib/ids.js';
import { keysRepo } from './repo.js';
import type { KeyKind } from './types.js';

const hint = (raw: string) => `${raw.slice(0, raw.indexOf('_', 3) + 1)}…${raw.slice(-4)}`;

/** A new key in the caller's transaction; the raw key is returned once and only its SHA-256 is stored. */
export async function issueKey(tx: Executor, platformId: string, kind: KeyKind) {
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
