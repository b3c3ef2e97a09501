import type { ApiKeyRow, KeyAuditRow } from './repo.js';

export function serializeKey(row: ApiKeyRow, secretKey?: string) {
  return {
    id: row.id,
    object: 'api_key' as const,
    kind: row.kind,
    hint: row.key_hint,
    // Publishable keys are public; a secret key appears here only in the response that created it.
    key: row.kind === 'publishable' ? row.publishable_key : (secretKey ?? null),
    state: row.revoked_at ? ('revoked' as const) : ('active' as const),
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
  };
}

export function serializeAuditEvent(row: KeyAuditRow) {
  return {
    id: row.id,
    object: 'audit_event' as const,
    action: row.action,
    key_id: row.key_id,
    key_kind: row.key_kind,
    key_hint: row.key_hint,
    actor: { type: row.actor_type, user_id: row.actor_user_id, email: row.actor_email, key_id: row.actor_key_id },
    client_address: row.client_address,
    created_at: row.created_at.toISOString(),
  };
}
