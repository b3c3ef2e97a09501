import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { authenticateKey, recallKey } from './authenticate.js';
import { issueKey } from './issue.js';
import { createKeyMemory } from './memory.js';
import { keysRepo } from './repo.js';
import { revokeKey } from './revoke.js';
import { rollKey } from './roll.js';
import type { KeyKind } from './types.js';

export type { AuthenticatedKey, KeyKind } from './types.js';

/** The keys service: each operation lives in its own file; this binds them to their dependencies and this instance's key memory. */
export function createKeysService(db: Db, clock: Clock) {
  const memory = createKeyMemory(db, clock);
  return {
    issue: issueKey,
    authenticate: (raw: string) => authenticateKey({ db, memory }, raw),
    recall: (raw: string) => recallKey(memory, raw),
    /** Records a use of a key whose validity a statement of its caller has just confirmed (throttled). */
    touched: (keyId: string) => memory.touch(keyId),
    list: (platformId: string) => keysRepo.listForPlatform(db, platformId),
    revoke: (platformId: string, keyId: string) => revokeKey({ db, clock }, platformId, keyId),
    roll: (platformId: string) => rollKey(db, platformId),
    assertKind(kind: string): asserts kind is KeyKind {
      if (kind !== 'secret' && kind !== 'publishable') throw new AppError('validation_failed', 'unknown key kind', 'kind');
    },
  };
}

export type KeysService = ReturnType<typeof createKeysService>;
