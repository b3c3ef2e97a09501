import type { Db, Executor } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { listAuditLog } from './audit.js';
import { authenticateKey, recallKey } from './authenticate.js';
import { issueKey } from './issue.js';
import { listKeys } from './list.js';
import { createKeyMemory } from './memory.js';
import { revokeKey } from './revoke.js';
import { rollKey } from './roll.js';
import type { KeyActor, KeyKind, SessionActor } from './types.js';

export type { AuthenticatedKey, KeyActor, KeyKind, SessionActor } from './types.js';
export { MAX_ACTIVE_KEYS } from './types.js';

type ListQuery = { limit: number; cursor?: string | undefined };

/** The keys service: each operation lives in its own file; this binds them to their dependencies and this instance's key memory. */
export function createKeysService(db: Db, clock: Clock) {
  const memory = createKeyMemory(db, clock);
  return {
    /** A platform's first keys, in onboarding's transaction (audited as key.created). */
    issue: (tx: Executor, platformId: string, kind: KeyKind, actor: SessionActor) =>
      issueKey(tx, { platformId, kind, actor, action: 'key.created', now: clock.now() }),
    authenticate: (raw: string) => authenticateKey({ db, memory }, raw),
    recall: (raw: string) => recallKey(memory, raw),
    /** Records a use of a key whose validity a statement of its caller has just confirmed (throttled). */
    touched: (keyId: string) => memory.touch(keyId),
    list: (platformId: string, q: ListQuery) => listKeys(db, platformId, q),
    revoke: (platformId: string, keyId: string, actor: KeyActor) => revokeKey({ db, clock }, platformId, keyId, actor),
    roll: (platformId: string, actor: SessionActor) => rollKey({ db, clock }, platformId, actor),
    auditLog: (platformId: string, q: ListQuery) => listAuditLog(db, platformId, q),
    assertKind(kind: string): asserts kind is KeyKind {
      if (kind !== 'secret' && kind !== 'publishable') throw new AppError('validation_failed', 'unknown key kind', 'kind');
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
