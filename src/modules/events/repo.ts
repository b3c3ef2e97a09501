import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { Cursor } from '../../db/pagination.js';
import type { EventsTable, WebhookDeliveriesTable } from '../../db/schema.js';

export type EventRow = Selectable<EventsTable>;
export type DeliveryStatusFilter = 'delivered' | 'failed' | 'pending';

/** The outcome of an event's deliveries (GET /v1/events?delivery_status=…), over the delivery rows of the event. */
function deliveryStatusIs(s: DeliveryStatusFilter) {
  const has = (states: string) => sql<boolean>`exists (select 1 from webhook_deliveries d where d.event_id = events.id and d.event_created_at = events.created_at and d.state in (${sql.raw(states)}))`;
  if (s === 'failed') return has(`'failed'`);
  if (s === 'pending') return sql<boolean>`${has(`'pending'`)} and not ${has(`'failed'`)}`;
  return sql<boolean>`${has(`'succeeded'`)} and not ${has(`'pending', 'failed'`)}`;
}
/** Pending deliveries as columns (one array per column, same length). */
export type DeliveryColumns = { id: string[]; eventId: string[]; endpointId: string[]; platformId: string[] };

/** bigint base units become decimal strings (the API's convention); Dates their ISO form via toJSON. */
const toJson = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

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

  /**
   * Many events in one statement. The scalar columns travel as typed arrays and the bodies as one JSON array
   * parsed once, straight to jsonb (jsonb_array_elements), matched to the ids by position. Measured against
   * json_to_recordset of whole rows (issue 20, docs/performance.md): about a third less time per 2,000 events,
   * the json → jsonb conversion of each body being the larger part of the cost.
   */
  insertMany: (db: Executor, rows: { id: string; platform_id: string; type: string; data: { object: Record<string, unknown> } }[], createdAt: Date) =>
    sql`insert into events (id, platform_id, type, data, created_at)
        select u.id, u.platform_id, u.type, b.data, ${createdAt.toISOString()}::timestamptz
        from unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.platform_id)}::text[], ${rows.map((r) => r.type)}::text[])
               with ordinality as u(id, platform_id, type, n)
        join jsonb_array_elements(${toJson(rows.map((r) => r.data))}::jsonb) with ordinality as b(data, n) using (n)`.execute(db),

  /** The platforms' endpoints that receive anything now (not deleted, not disabled), with what they subscribe to. */
  activeEndpoints: async (db: Executor, platformIds: string[]) =>
    (await sql<{ id: string; platform_id: string; subscribed_events: unknown }>`
      select id, platform_id, subscribed_events from webhook_endpoints
      where platform_id = any(${platformIds}::text[]) and deleted_at is null and disabled_at is null`.execute(db)).rows,

  /** Pending deliveries in one statement; next_attempt_at defaults to the database's now() (the deliverer's clock). */
  insertDeliveriesMany: (db: Executor, rows: DeliveryColumns, createdAt: Date) =>
    sql`insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, created_at, event_created_at)
        select u.id, u.event_id, u.endpoint_id, u.platform_id, 'pending', ${createdAt.toISOString()}::timestamptz, ${createdAt.toISOString()}::timestamptz
        from unnest(${rows.id}::text[], ${rows.eventId}::text[], ${rows.endpointId}::text[], ${rows.platformId}::text[]) as u(id, event_id, endpoint_id, platform_id)`.execute(db),

  /**
   * CTEs `outbox_events` and `outbox_deliveries`, appended to a statement one of whose CTEs (`source`: event_id,
   * platform_id, body jsonb) yields the events: each event is written with {"object": body}, and each planned
   * delivery only if its event was (joined to the inserted rows, so it also follows them in the statement).
   */
  insertFromCtes: (source: string, type: string, rows: DeliveryColumns, createdAt: Date) => sql`
    outbox_events as (
      insert into events (id, platform_id, type, data, created_at)
      select s.event_id, s.platform_id, ${type}, jsonb_build_object('object', s.body), ${createdAt.toISOString()}::timestamptz
      from ${sql.table(source)} s
      returning id),
    outbox_deliveries as (
      insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, created_at, event_created_at)
      select u.id, u.event_id, u.endpoint_id, u.platform_id, 'pending', ${createdAt.toISOString()}::timestamptz, ${createdAt.toISOString()}::timestamptz
      from unnest(${rows.id}::text[], ${rows.eventId}::text[], ${rows.endpointId}::text[], ${rows.platformId}::text[]) as u(id, event_id, endpoint_id, platform_id)
      join outbox_events e on e.id = u.event_id
      returning 1)`,

  /** By id alone: one probe of each week's primary key index (the key is (id, created_at)). `since`: none older. */
  findForPlatform: (db: Executor, platformId: string, id: string, since?: Date) =>
    db.selectFrom('events').selectAll().where('platform_id', '=', platformId).where('id', '=', id)
      .$if(since !== undefined, (q) => q.where('created_at', '>=', since!)).executeTakeFirst(),

  /** Newest first, keyset on (created_at, id); limit + 1 rows so the caller knows whether there is more. */
  list: (db: Executor, platformId: string, q: { limit: number; cursor: Cursor | null } & EventFilter) => {
    let query = filtered(db, platformId, q);
    if (q.cursor) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(q.cursor!.createdAt, q.cursor!.id)));
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit + 1).execute();
  },

  /**
   * The follower's feed (GET /v1/events?after=…): the events after `after` in the order (tx, created_at, id), of
   * transactions older than every one still running (pg_snapshot_xmin): no event can appear later before one already
   * listed, however late its transaction commits. events_platform_tx_idx; limit + 1 rows.
   */
  listAfter: (db: Executor, platformId: string, after: Pick<EventRow, 'tx' | 'created_at' | 'id'> | null, q: { limit: number } & EventFilter) => {
    let query = filtered(db, platformId, q).where(sql<boolean>`tx < pg_snapshot_xmin(pg_current_snapshot())`);
    if (after) query = query.where(sql<boolean>`(tx, created_at, id) > (${after.tx}::xid8, ${after.created_at}::timestamptz, ${after.id})`);
    return query.orderBy('tx').orderBy('created_at').orderBy('id').limit(q.limit + 1).execute();
  },

  /** The last event of the follower's feed now (the same order and horizon as listAfter): where a stream without `after` starts. */
  lastInFeed: (db: Executor, platformId: string) =>
    db.selectFrom('events').selectAll().where('platform_id', '=', platformId)
      .where(sql<boolean>`tx < pg_snapshot_xmin(pg_current_snapshot())`)
      .orderBy('tx', 'desc').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst(),
};

/** `since`: the events API serves no event older (EVENT_RETENTION_DAYS), whether or not its week was dropped yet. */
type EventFilter = { type?: string | undefined; deliveryStatus?: DeliveryStatusFilter | undefined; since?: Date | undefined };

function filtered(db: Executor, platformId: string, q: EventFilter) {
  let query = db.selectFrom('events').selectAll().where('platform_id', '=', platformId);
  if (q.since) query = query.where('created_at', '>=', q.since);
  if (q.type?.endsWith('.*')) query = query.where('type', 'like', q.type.slice(0, -1).replace(/_/g, '\\_') + '%');
  else if (q.type) query = query.where('type', '=', q.type);
  if (q.deliveryStatus) query = query.where(deliveryStatusIs(q.deliveryStatus));
  return query;
}
