import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { PlatformsTable } from '../../db/schema.js';

export type PlatformRow = Selectable<PlatformsTable>;

export const platformsRepo = {
  insert: (db: Executor, row: Insertable<PlatformsTable>) =>
    db.insertInto('platforms').values(row).onConflict((oc) => oc.column('user_id').doNothing())
      .returningAll().executeTakeFirst(),
  findById: (db: Executor, id: string) => db.selectFrom('platforms').selectAll().where('id', '=', id).executeTakeFirst(),
  findByUser: (db: Executor, userId: string) =>
    db.selectFrom('platforms').selectAll().where('user_id', '=', userId).executeTakeFirst(),
};
