import type { Executor } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { newId } from '../../lib/ids.js';
import { keysRepo, type ApiKeyRow } from './repo.js';
import { serializeAuditEvent } from './serialize.js';
import type { KeyActor, KeyAuditAction } from './types.js';

/**
 * One audit row, in the caller's transaction: it commits with the key change it records or not at all. The
 * e-mail is the user's at the time; the address is cut to 64 characters (an IPv6 address with a zone fits)
 * so that whatever a misconfigured proxy chain lets a client write cannot grow the row.
 */
export async function recordKeyEvent(tx: Executor, key: ApiKeyRow, action: KeyAuditAction, actor: KeyActor, now: Date) {
  await keysRepo.insertAudit(tx, {
    id: newId('aud'),
    platform_id: key.platform_id,
    action,
    key_id: key.id,
    key_kind: key.kind,
    key_hint: key.key_hint,
    actor_type: actor.kind,
    actor_user_id: actor.kind === 'session' ? actor.userId : null,
    actor_email: actor.kind === 'session' ? actor.email : null,
    actor_key_id: actor.kind === 'secret_key' ? actor.keyId : null,
    client_address: actor.clientAddress?.slice(0, 64) ?? null,
    created_at: now,
  });
}

/** GET /v1/developers/audit_log: the platform's key events, newest first, in keyset pages. */
export async function listAuditLog(db: Executor, platformId: string, q: { limit: number; cursor?: string | undefined }) {
  const rows = await keysRepo.auditPage(db, platformId, q.limit + 1, decodeCursor(q.cursor));
  return toPage(rows, q.limit, serializeAuditEvent);
}
