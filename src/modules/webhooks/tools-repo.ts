import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { WebhookEndpointsTable } from '../../db/schema.js';
import type { Updateable } from 'kysely';

/** SQL of the developer tools over endpoints and deliveries (edit, pause, test event, the delivery inspector). */
export const toolsRepo = {
  update: (db: Executor, platformId: string, id: string, set: Updateable<WebhookEndpointsTable>) =>
    db.updateTable('webhook_endpoints').set(set)
      .where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null)
      .returningAll().executeTakeFirst(),

  /** Compare-and-set: pauses only a live endpoint that is neither paused nor disabled. */
  pause: (db: Executor, platformId: string, id: string, at: Date) =>
    db.updateTable('webhook_endpoints').set({ paused_at: at })
      .where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null)
      .where('paused_at', 'is', null).where('disabled_at', 'is', null)
      .returningAll().executeTakeFirst(),

  /** Resuming makes the deliveries that fell due while paused due now (they are claimed in their order). */
  resume: (db: Executor, platformId: string, id: string) =>
    db.updateTable('webhook_endpoints').set({ paused_at: null })
      .where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null)
      .where('paused_at', 'is not', null)
      .returningAll().executeTakeFirst(),

  attempts: (db: Executor, deliveryId: string) =>
    db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId)
      .orderBy('attempted_at').orderBy('id').limit(100).execute(),

  eventOf: (db: Executor, eventId: string) =>
    db.selectFrom('events').selectAll().where('id', '=', eventId).executeTakeFirstOrThrow(),

  /** Counts test pings of a platform in the last minute (a bound on what one caller makes us send). */
  recentTestPings: async (db: Executor, platformId: string) =>
    Number((await sql<{ n: string }>`select count(*)::text as n from events
      where platform_id = ${platformId} and (type = 'test.ping' or data->'object'->>'test' = 'true') and created_at > now() - interval '1 minute'`.execute(db)).rows[0]!.n),
};
