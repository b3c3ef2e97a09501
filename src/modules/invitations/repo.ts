import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { InvitationsTable } from '../../db/schema.js';
import { INVITATION_TRANSITIONS } from './state.js';

const { complete: COMPLETE, expire: EXPIRE } = INVITATION_TRANSITIONS;

export type InvitationRow = Selectable<InvitationsTable>;

export const invitationsRepo = {
  insert: (db: Executor, row: Insertable<InvitationsTable>) =>
    db.insertInto('invitations').values(row).returningAll().executeTakeFirstOrThrow(),

  /** A fresh invitation for an external_id supersedes the pending one (SPEC §3: the old token stays expired). */
  expirePendingFor: (db: Executor, platformId: string, externalId: string) =>
    db.updateTable('invitations').set({ state: EXPIRE.to })
      .where('platform_id', '=', platformId).where('external_id', '=', externalId).where('state', 'in', EXPIRE.from)
      .execute(),

  findByTokenHash: (db: Executor, tokenHash: string) =>
    db.selectFrom('invitations').innerJoin('platforms', 'platforms.id', 'invitations.platform_id')
      .selectAll('invitations').select('platforms.name as platform_name')
      .where('token_hash', '=', tokenHash).executeTakeFirst(),

  lockByTokenHash: (db: Executor, tokenHash: string) =>
    db.selectFrom('invitations').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst(),

  complete: (db: Executor, id: string, wallet: string, merchantId: string, now: Date) =>
    db.updateTable('invitations').set({ state: COMPLETE.to, wallet, merchant_id: merchantId, completed_at: now })
      .where('id', '=', id).where('state', 'in', COMPLETE.from).returningAll().executeTakeFirst(),

  expireIfDue: (db: Executor, id: string, now: Date) =>
    db.updateTable('invitations').set({ state: EXPIRE.to })
      .where('id', '=', id).where('state', 'in', EXPIRE.from).where('expires_at', '<=', now).execute(),

  expireDue: (db: Executor, now: Date) =>
    db.updateTable('invitations').set({ state: EXPIRE.to })
      .where('state', 'in', EXPIRE.from).where('expires_at', '<=', now).executeTakeFirst(),

  /** Compare-and-set: only a pending invitation is revoked; it becomes expired with `revoked_at` (no new state). */
  revokePending: (db: Executor, platformId: string, id: string, now: Date) =>
    db.updateTable('invitations').set({ state: EXPIRE.to, revoked_at: now })
      .where('id', '=', id).where('platform_id', '=', platformId).where('state', 'in', EXPIRE.from).returningAll().executeTakeFirst(),

  findById: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('invitations').selectAll().where('id', '=', id).where('platform_id', '=', platformId).executeTakeFirst(),

  recent: (db: Executor, platformId: string, limit: number) =>
    db.selectFrom('invitations').selectAll().where('platform_id', '=', platformId)
      .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute(),
};
