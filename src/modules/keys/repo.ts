import type { Executor } from '../../db/client.js';
import type { ApiKeysTable } from '../../db/schema.js';
import type { Insertable, Selectable } from 'kysely';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export const keysRepo = {
  insert: (db: Executor, row: Insertable<ApiKeysTable>) =>
    db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow(),

  /** What authenticating a request needs, and nothing more: it runs on every authenticated request. */
  findByHash: (db: Executor, keyHash: string) =>
    db.selectFrom('api_keys').select(['id', 'platform_id', 'kind', 'key_hash', 'revoked_at']).where('key_hash', '=', keyHash).executeTakeFirst(),

  listForPlatform: (db: Executor, platformId: string) =>
    db.selectFrom('api_keys').selectAll().where('platform_id', '=', platformId)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100).execute(),

  findForPlatform: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('api_keys').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst(),

  revoke: (db: Executor, platformId: string, id: string, now: Date) =>
    db.updateTable('api_keys').set({ revoked_at: now })
      .where('platform_id', '=', platformId).where('id', '=', id).where('revoked_at', 'is', null)
      .returningAll().executeTakeFirst(),

  /** Throttled: at most one write per key per minute, so authentication stays a read. */
  touch: (db: Executor, id: string, now: Date) =>
    db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now.getTime() - 60_000))]))
      .execute(),
};
