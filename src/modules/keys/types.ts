export type KeyKind = 'secret' | 'publishable';
export type AuthenticatedKey = { keyId: string; platformId: string; kind: KeyKind };
