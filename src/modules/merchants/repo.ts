import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { Cursor } from '../../db/pagination.js';
import type { MerchantsTable } from '../../db/schema.js';

export type MerchantRow = Selectable<MerchantsTable>;

export const merchantsRepo = {
  /** null when (platform_id, external_id) is taken: the unique index decides, not a prior read. */
  insert: (db: Executor, row: Insertable<MerchantsTable>) =>
    db.insertInto('merchants').values(row)
      .onConflict((oc) => oc.columns(['platform_id', 'external_id']).doNothing())
      .returningAll().executeTakeFirst(),

  findById: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('merchants').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst(),

  findByExternalId: (db: Executor, platformId: string, externalId: string) =>
    db.selectFrom('merchants').selectAll().where('platform_id', '=', platformId).where('external_id', '=', externalId).executeTakeFirst(),

  list: (db: Executor, platformId: string, limit: number, cursor: Cursor | null) => {
    let q = db.selectFrom('merchants').selectAll().where('platform_id', '=', platformId);
    if (cursor) {
      q = q.where((eb) => eb.or([
        eb('created_at', '<', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)]),
      ]));
    }
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  },
};
