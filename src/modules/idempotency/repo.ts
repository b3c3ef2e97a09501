import type { Executor } from '../../db/client.js';

export type IdemKey = { scope: string; key: string };

export const idempotencyRepo = {
  /** The primary key decides the race: exactly one caller inserts, the others read the winner's row. */
  claim: (db: Executor, k: IdemKey, method: string, path: string, fingerprint: string, now: Date) =>
    db.insertInto('idempotency_keys')
      .values({ scope: k.scope, key: k.key, method, path, fingerprint, locked_at: now, created_at: now })
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .returning('key').executeTakeFirst(),

  find: (db: Executor, k: IdemKey) =>
    db.selectFrom('idempotency_keys').selectAll().where('scope', '=', k.scope).where('key', '=', k.key).executeTakeFirst(),

  /**
   * Takes over a lock that lapsed (its request crashed): compare-and-set on "still lapsed", so of several
   * racing callers exactly one wins (the winner's fresh lock is no longer older than the cutoff). Not an
   * equality on the old lock time: timestamptz keeps microseconds, a JS Date only milliseconds.
   */
  takeOver: (db: Executor, k: IdemKey, lapsedBefore: Date, now: Date) =>
    db.updateTable('idempotency_keys').set({ locked_at: now })
      .where('scope', '=', k.scope).where('key', '=', k.key).where('status', 'is', null).where('locked_at', '<=', lapsedBefore)
      .returning('key').executeTakeFirst(),

  complete: (db: Executor, k: IdemKey, status: number, body: string) =>
    db.updateTable('idempotency_keys').set({ status, response_body: body, locked_at: null })
      .where('scope', '=', k.scope).where('key', '=', k.key).execute(),

  release: (db: Executor, k: IdemKey) =>
    db.deleteFrom('idempotency_keys').where('scope', '=', k.scope).where('key', '=', k.key).where('status', 'is', null).execute(),

  deleteExpired: (db: Executor, before: Date) =>
    db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst(),

  deleteOne: (db: Executor, k: IdemKey, createdBefore: Date) =>
    db.deleteFrom('idempotency_keys').where('scope', '=', k.scope).where('key', '=', k.key)
      .where('created_at', '<', createdBefore).execute(),
};
