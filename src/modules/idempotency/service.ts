import { createHash } from 'node:crypto';
import type { Db, Executor } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Sealer } from '../../lib/seal.js';
import { AppError } from '../../lib/errors.js';
import { idempotencyRepo, type IdemKey } from './repo.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A lock left by a request that crashed mid-flight lapses after this long (DESIGN §3). */
export const IDEMPOTENCY_LOCK_MS = 90 * 1000;

export type Claim =
  | { kind: 'proceed'; key: IdemKey }
  | { kind: 'replay'; status: number; body: string };

/** Key order does not change meaning in JSON: the fingerprint is over a canonical form of the body. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

export function fingerprint(method: string, path: string, rawBody: string): string {
  let body = rawBody;
  try {
    body = JSON.stringify(canonical(JSON.parse(rawBody)));
  } catch {
    /* not JSON: the raw text is the body */
  }
  return createHash('sha256').update(`${method}\n${path}\n${body}`).digest('hex');
}

/**
 * Stored responses are sealed (AES-256-GCM): a replayed onboarding or key-roll response carries the
 * secret key it created, and DESIGN keeps secret keys out of the database in the clear.
 */
export function createIdempotencyService(db: Db, sealer: Sealer, clock: Clock) {
  return {
    async claim(key: IdemKey, method: string, path: string, rawBody: string, now = clock.now()): Promise<Claim> {
      const fp = fingerprint(method, path, rawBody);
      for (let attempt = 0; attempt < 3; attempt++) {
        if (await idempotencyRepo.claim(db, key, method, path, fp, now)) return { kind: 'proceed', key };
        const row = await idempotencyRepo.find(db, key);
        if (!row) continue; // released between our insert and read: try again
        if (row.created_at.getTime() < now.getTime() - IDEMPOTENCY_TTL_MS) {
          await idempotencyRepo.deleteOne(db, key, new Date(now.getTime() - IDEMPOTENCY_TTL_MS));
          continue;
        }
        if (row.fingerprint !== fp) throw new AppError('duplicate_idempotency_key');
        if (row.status !== null && row.response_body !== null) {
          return { kind: 'replay', status: row.status, body: sealer.open(row.response_body) };
        }
        const lockedAt = row.locked_at;
        if (lockedAt && lockedAt.getTime() > now.getTime() - IDEMPOTENCY_LOCK_MS) throw new AppError('idempotency_key_in_use');
        if (lockedAt && !(await idempotencyRepo.takeOver(db, key, new Date(now.getTime() - IDEMPOTENCY_LOCK_MS), now))) {
          throw new AppError('idempotency_key_in_use');
        }
        return { kind: 'proceed', key };
      }
      throw new AppError('idempotency_key_in_use');
    },

    complete: (key: IdemKey, status: number, body: string) => idempotencyRepo.complete(db, key, status, sealer.seal(body)),
    /** The same, inside the caller's transaction (see context.ts). */
    open: (stored: string) => sealer.open(stored),
    completeInTx: (tx: Executor, key: IdemKey, status: number, body: string) => idempotencyRepo.complete(tx, key, status, sealer.seal(body)),
    release: (key: IdemKey) => idempotencyRepo.release(db, key),
    purgeExpired: (now = clock.now()) => idempotencyRepo.deleteExpired(db, new Date(now.getTime() - IDEMPOTENCY_TTL_MS)),
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
