import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { Cursor } from '../../db/pagination.js';
import type { ApiKeysTable, KeyAuditLogTable } from '../../db/schema.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;
export type KeyAuditRow = Selectable<KeyAuditLogTable>;
/** A position in the key list: active keys first (revoked = false), then revoked ones, newest first within each. */
export type KeyCursor = Cursor & { revoked: boolean };

/** The expression api_keys_platform_state_idx (migration 023) is built on: the same text, so the index serves it. */
const isRevoked = sql<boolean>`(revoked_at is not null)`;

export const keysRepo = {
  insert: (db: Executor, row: Insertable<ApiKeysTable>) =>
    db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow(),

  /** What authenticating a request needs, and nothing more: it runs on every authenticated request. */
  findByHash: (db: Executor, keyHash: string) =>
    db.selectFrom('api_keys').select(['id', 'platform_id', 'kind', 'key_hash', 'revoked_at']).where('key_hash', '=', keyHash).executeTakeFirst(),

  /** One page (`limit` rows) in list order after `after`. */
  page: (db: Executor, platformId: string, limit: number, after: KeyCursor | null) => {
    let q = db.selectFrom('api_keys').selectAll().where('platform_id', '=', platformId);
    if (after) {
      q = q.where(sql<boolean>`(${isRevoked} > ${after.revoked}
        or (${isRevoked} = ${after.revoked} and (created_at, id) < (${after.createdAt}, ${after.id})))`);
    }
    return q.orderBy(isRevoked).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  },

  /** Serialises key creation per platform (with countActive: at most MAX_ACTIVE_KEYS, however many race). */
  lockPlatform: (tx: Executor, platformId: string) =>
    tx.selectFrom('platforms').select('id').where('id', '=', platformId).forUpdate().executeTakeFirst(),

  countActive: async (tx: Executor, platformId: string) => Number((await tx.selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n')).where('platform_id', '=', platformId).where(isRevoked, '=', false)
    .executeTakeFirstOrThrow()).n),

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

  insertAudit: (tx: Executor, row: Insertable<KeyAuditLogTable>) => tx.insertInto('key_audit_log').values(row).execute(),

  auditPage: (db: Executor, platformId: string, limit: number, after: Cursor | null) => {
    let q = db.selectFrom('key_audit_log').selectAll().where('platform_id', '=', platformId);
    if (after) q = q.where(sql<boolean>`(created_at, id) < (${after.createdAt}, ${after.id})`);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  },
};
