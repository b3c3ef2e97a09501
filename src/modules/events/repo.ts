import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { Cursor } from '../../db/pagination.js';
import type { EventsTable, WebhookDeliveriesTable } from '../../db/schema.js';

export type EventRow = Selectable<EventsTable>;

export const eventsRepo = {
  insert: (db: Executor, row: Insertable<EventsTable>) =>
    db.insertInto('events').values(row).returningAll().executeTakeFirstOrThrow(),

  /** Endpoints that receive `type` now: not deleted, not disabled, subscribed to it or to everything. */
  subscribedEndpointIds: async (db: Executor, platformId: string, type: string) =>
    (await db.selectFrom('webhook_endpoints').select('id')
      .where('platform_id', '=', platformId)
      .where('deleted_at', 'is', null)
      .where('disabled_at', 'is', null)
      .where((eb) => eb.or([
        sql<boolean>`subscribed_events @> ${JSON.stringify([type])}::jsonb`,
        sql<boolean>`subscribed_events @> '["*"]'::jsonb`,
      ]))
      .execute()).map((r) => r.id),

  insertDeliveries: (db: Executor, rows: Insertable<WebhookDeliveriesTable>[]) =>
    rows.length === 0 ? Promise.resolve() : db.insertInto('webhook_deliveries').values(rows).execute().then(() => undefined),

  findForPlatform: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('events').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst(),

  /** Newest first, keyset on (created_at, id); limit + 1 rows so the caller knows whether there is more. */
  list: (db: Executor, platformId: string, q: { limit: number; cursor: Cursor | null; type?: string }) => {
    let query = db.selectFrom('events').selectAll().where('platform_id', '=', platformId);
    if (q.type) query = query.where('type', '=', q.type);
    if (q.cursor) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(q.cursor!.createdAt, q.cursor!.id)));
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit + 1).execute();
  },
};
