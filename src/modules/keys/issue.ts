import type { Executor } from '../../db/client.js';
import { newId, newSecret, sha256Hex } from '../../lib/ids.js';
import { recordKeyEvent } from './audit.js';
import { keysRepo } from './repo.js';
import type { KeyActor, KeyAuditAction, KeyKind } from './types.js';

const hint = (raw: string) => `${raw.slice(0, raw.indexOf('_', 3) + 1)}…${raw.slice(-4)}`;

export type IssueInput = { platformId: string; kind: KeyKind; actor: KeyActor; action: Exclude<KeyAuditAction, 'key.revoked'>; now: Date };

/**
 * A new key and its audit row in the caller's transaction; the raw key is returned once and only its SHA-256
 * is stored. Stamped with the service's clock (milliseconds, as the list's cursors carry).
 */
export async function issueKey(tx: Executor, input: IssueInput) {
  const raw = newSecret(input.kind === 'secret' ? 'sk_live' : 'pk_live');
  const row = await keysRepo.insert(tx, {
    id: newId('key'),
    platform_id: input.platformId,
    kind: input.kind,
    key_hash: sha256Hex(raw),
    key_hint: hint(raw),
    // Publishable keys are meant to be embedded in pages; only secret keys are kept as hashes alone.
    publishable_key: input.kind === 'publishable' ? raw : null,
    created_at: input.now,
  });
  await recordKeyEvent(tx, row, input.action, input.actor, input.now);
  return { row, raw };
}
