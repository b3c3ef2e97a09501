export type KeyKind = 'secret' | 'publishable';
export type AuthenticatedKey = { keyId: string; platformId: string; kind: KeyKind };

/** At most this many unrevoked keys (secret and publishable) per platform: creating another is 409 key_limit_reached. */
export const MAX_ACTIVE_KEYS = 20;

export type KeyAuditAction = 'key.created' | 'key.rolled' | 'key.revoked';

/**
 * Who changes a key, for the audit log: a dashboard user, or a secret key (which may only revoke itself).
 * `clientAddress` as api/client-address.ts works it out (TRUST_PROXY_HOPS), null when there is none.
 */
export type SessionActor = { kind: 'session'; userId: string; email: string; clientAddress: string | null };
export type KeyActor = SessionActor | { kind: 'secret_key'; keyId: string; clientAddress: string | null };
