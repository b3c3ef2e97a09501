import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { InvitationsTable } from '../../db/schema.js';

export type InvitationRow = Selectable<InvitationsTable>;

export const invitationsRepo = {
  insert: (db: Executor, row: Insertable<InvitationsTable>) =>
    db.insertInto('invitations').values(row).returningAll().executeTakeFirstOrThrow(),

  /** A fresh invitation for an external_id supersedes the pending one (SPEC §3: the old token stays expired). */
  expirePendingFor: (db: Executor, platformId: string, externalId: string) =>
    db.updateTable('invitations').set({ state: 'expired' })
      .where('platform_id', '=', platformId).where('external_id', '=', externalId).where('state', '=', 'pending')
      .execute(),

  findByTokenHash: (db: Executor, tokenHash: string) =>
    db.selectFrom('invitations').innerJoin('platforms', 'platforms.id', 'invitations.platform_id')
      .selectAll('invitations').select('platforms.name as platform_name')
      .where('token_hash', '=', tokenHash).executeTakeFirst(),

  lockByTokenHash: (db: Executor, tokenHash: string) =>
    db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst(),

  complete: (db: Executor, id: string, wallet: string, merchantId: string) =>
    db.updateTable('invitations').set({ state: 'completed', wallet, merchant_id: merchantId, completed_at: new Date() })
      .where('id', '=', id).where('state', '=', 'pending').returningAll().executeTakeFirst(),

  expireIfDue: (db: Executor, id: string, now: Date) =>
    db.updateTable('invitations').set({ state: 'expired' })
      .where('id', '=', id).where('state', '=', 'pending').where('expires_at', '<=', now).execute(),

  expireDue: (db: Executor, now: Date) =>
    db.updateTable('invitations').set({ state: 'expired' })
      .where('state', '=', 'pending').where('expires_at', '<=', now).executeTakeFirst(),

  recent: (db: Executor, platformId: string, limit: number) =>
    db.selectFrom('invitations').selectAll().where('platform_id', '=', platformId)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute(),
};
