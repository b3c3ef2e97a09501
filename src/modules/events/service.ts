import type { Db, Executor } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { notFound } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { listAfter } from './list-after.js';
import { eventsRepo, type DeliveryStatusFilter, type EventRow } from './repo.js';
import { serializeEvent } from './serialize.js';
import { isEventType, type EventType } from './types.js';
import { createStreamSlots, STREAM_LIMITS, streamEvents, streamStart, type StreamMessage, type StreamOptions } from './stream.js';

export { ALL_EVENTS, EVENT_TYPES, type EventType } from './types.js';
export { eventBody } from './serialize.js';
export type { EventRow } from './repo.js';

export type EmitInput = { platformId: string; type: EventType; data: { object: Record<string, unknown> } };

/** bigint base units become decimal strings (the API's convention); Dates their ISO form via toJSON. */
const toJson = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

/**
 * Outbox: writes the event and one pending delivery per active subscribed endpoint, in the caller's
 * transaction, so "state changed" and "webhook will be sent" commit or roll back together. Given a plain
 * Db (no transaction), it opens one itself so the event never exists without its deliveries.
 * Times are set here at millisecond precision so they round-trip exactly through cursors and JSON.
 */
export async function emitEvent(tx: Executor, e: EmitInput): Promise<EventRow> {
  if (!isEventType(e.type)) throw new Error(`emitEvent: unknown event type ${String(e.type)}`);
  if (!tx.isTransaction) return tx.transaction().execute((t) => emitEvent(t, e));
  const now = new Date();
  const event = await eventsRepo.insert(tx, {
    id: newId('evt'),
    platform_id: e.platformId,
    type: e.type,
    data: toJson({ object: e.data.object }),
    created_at: now,
  });
  const endpointIds = await eventsRepo.subscribedEndpointIds(tx, e.platformId, e.type);
  await eventsRepo.insertDeliveries(tx, endpointIds.map((endpointId) => ({
    id: newId('dlv'),
    event_id: event.id,
    endpoint_id: endpointId,
    platform_id: e.platformId,
    state: 'pending' as const,
    // next_attempt_at defaults to the database's now(): the deliverer compares it with the same clock.
    created_at: now,
    event_created_at: event.created_at,
  })));
  return event;
}

/**
 * `retention`: the events API serves no event older than retentionDays (EVENT_RETENTION_DAYS) by the service clock,
 * whether or not the retention worker has dropped its week yet, so what it answers does not depend on when that ran.
 */
export function createEventsService(db: Db, o: { streamLimits?: typeof STREAM_LIMITS; retention?: { days: number; clock: Clock } } = {}) {
  const slots = createStreamSlots(o.streamLimits);
  const since = () => (o.retention ? new Date(o.retention.clock.now().getTime() - o.retention.days * 86_400_000) : undefined);
  return {
    /**
     * GET /v1/events/stream: checks `after` and takes a slot (404 / 429 before anything is streamed), then returns
     * the stream's loop; the slot is given back when the loop ends, however it ends.
     */
    async openStream(platformId: string, after: string | undefined) {
      const start = await streamStart(db, platformId, after);
      const release = slots.acquire(platformId);
      const run = async (send: (m: StreamMessage) => Promise<void>, opts: StreamOptions) => {
        try {
          await streamEvents(db, platformId, start, send, opts);
        } finally {
          release();
        }
      };
      return { after: start?.id ?? null, run };
    },
    openStreams: () => slots.open(),

    emit: (tx: Executor, e: EmitInput) => emitEvent(tx, e),

    async list(platformId: string, q: { limit: number; cursor?: string; after?: string; type?: string; delivery_status?: DeliveryStatusFilter }) {
      if (q.after !== undefined) return listAfter(db, platformId, { ...q, after: q.after, since: since() });
      const cursor = decodeCursor(q.cursor);
      const rows = await eventsRepo.list(db, platformId, { limit: q.limit, cursor, type: q.type, deliveryStatus: q.delivery_status, since: since() });
      return toPage(rows, q.limit, serializeEvent);
    },

    async get(platformId: string, id: string) {
      const row = await eventsRepo.findForPlatform(db, platformId, id, since());
      if (!row) throw notFound('event');
      return row;
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
