import { createRoute } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse, listEnvelope, ListQuery, z } from '../openapi.js';
import { EventSchema } from '../schemas/events.js';
import { WebhookDelivery } from '../../modules/webhooks/schemas.js';
import { serializeEvent } from '../../modules/events/serialize.js';
import { EVENT_TYPES } from '../../modules/events/types.js';
import { STREAM_HEARTBEAT_MS, STREAM_LIMITS, STREAM_MAX_MS, STREAM_POLL_MS } from '../../modules/events/stream.js';

/** A known event type (or the endpoint test's test.ping), or `prefix.*` where one starts with `prefix.`: a typo is a
 *  422, not an empty list. */
const FILTERABLE: readonly string[] = [...EVENT_TYPES, 'test.ping'];
const knownTypeOrPrefix = (v: string) => v.endsWith('.*') ? FILTERABLE.some((t) => t.startsWith(v.slice(0, -1))) : FILTERABLE.includes(v);

const EventsQuery = ListQuery.extend({
  type: z.string().max(64).regex(/^[a-z_]+(\.[a-z_]+)*(\.\*)?$/, 'must be an event type (order.confirmed) or a prefix (order.*)')
    .refine(knownTypeOrPrefix, 'is not an event type this service sends, nor a prefix of one').optional()
    .openapi({ description: 'Only events of this type, or of every type under a prefix: `order.*`', example: 'order.*' }),
  after: z.string().regex(/^[A-Za-z0-9_]{1,64}$/, 'must be an event id (evt_…)').optional().openapi({
    description: 'An event id of this platform: only the events after it, **oldest first** (for a follower; `trisettle listen`). '
      + 'After means in the order the events became final (their transactions), so an event committed late is listed after those already '
      + 'returned, never skipped: pass the last id of each page as `after` and every event is read once. `next_cursor` is null '
      + '(not combinable with `cursor`); `has_more` says more are listable now. Another platform\'s event, or none: 404 (param `after`).',
    example: 'evt_3Qa9Zk2LmN8pRt5VwXy1',
  }),
  delivery_status: z.enum(['delivered', 'failed', 'pending']).optional().openapi({
    description: 'delivered: every delivery of the event succeeded; failed: at least one failed; pending: at least one is still pending and none failed. Events without deliveries match none.',
  }),
}).strict();
const EventParams = z.object({ id: z.string().max(64) });
const StreamQuery = z.object({
  after: z.string().regex(/^[A-Za-z0-9_]{1,64}$/, 'must be an event id (evt_…)').optional().openapi({
    description: 'Start after this event of the platform (the last one you read); absent: only events from now on. `Last-Event-ID` is read when `after` is absent.',
  }),
}).strict();

const stream = createRoute({
  method: 'get', path: '/v1/events/stream', tags: ['Events'], summary: 'Stream events as they happen (server-sent events)',
  description: `One \`text/event-stream\` response: first \`event: ready\` with \`{"after": <the event it starts after, or null>}\`, then each event as \`id: <evt_id>\`, \`event: <type>\`, \`data: <the event as GET /v1/events/{id} returns it>\`, `
    + `oldest first, in the order of \`GET /v1/events?after=\` (each once), and a \`: ping\` comment after ${STREAM_HEARTBEAT_MS / 1000} s of silence. `
    + `The server reads new events every ${STREAM_POLL_MS / 1000} s and ends the stream after ${STREAM_MAX_MS / 60_000} minutes: reconnect with \`after=<the last id>\`. `
    + `At most ${STREAM_LIMITS.perPlatform} open streams per platform (${STREAM_LIMITS.total} per instance): one more is 429 rate_limited. \`trisettle listen\` reads this.`,
  ...access.secretOrSession(), request: { query: StreamQuery },
  responses: {
    200: { description: 'The stream', content: { 'text/event-stream': { schema: z.string() } } },
    ...errors(401, 403, 404, 422, 429),
  },
});

const list = createRoute({
  method: 'get', path: '/v1/events', tags: ['Events'], summary: 'List events',
  description: 'Everything the service emitted for this platform, newest first, whether or not an endpoint was subscribed. '
    + 'With `after=<evt_id>`: the events after that one, oldest first (a follower\'s feed).',
  ...access.secretOrSession(), request: { query: EventsQuery },
  responses: { 200: jsonResponse(listEnvelope(EventSchema, 'EventList'), 'Events, newest first (oldest first with after)'), ...errors(401, 403, 404, 422) },
});
const EventDetail = EventSchema.extend({
  deliveries: z.array(WebhookDelivery).openapi({ description: 'One per endpoint the event was sent to (at most 100), oldest first; resend one with POST /v1/webhooks/deliveries/{id}/redeliver' }),
}).openapi('EventDetail');
const get = createRoute({
  method: 'get', path: '/v1/events/{id}', tags: ['Events'], summary: 'Retrieve an event',
  ...access.secretOrSession(), request: { params: EventParams },
  responses: { 200: jsonResponse(EventDetail, 'The event, with its deliveries'), ...errors(401, 403, 404) },
});

const TestEventBody = z.object({
  type: z.string().max(64).openapi({ description: 'Any event type the service emits, or `test.ping`', example: 'subscription.past_due' }),
}).strict().openapi('EmitTestEventRequest');
const emitTest = createRoute({
  method: 'post', path: '/v1/events/test', tags: ['Events'], summary: 'Emit a test event of a type',
  description: 'A test event of that type for the platform, as a real one would be: listed with its events (and streamed) and delivered to every endpoint subscribed to the type. '
    + 'Its object is a sample with ids like `ord_test_…` and `test: true`: act on none. `trisettle trigger` sends these for types the devnet has no flow for. '
    + 'A type the service does not send is 422 naming them all. At most 30 test events a minute per platform (with endpoint test events).',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, body: jsonBody(TestEventBody) },
  responses: { 201: jsonResponse(EventSchema, 'The test event'), ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
});

export const eventRoutes = createRouter()
  .openapi(emitTest, async (c) => {
    const event = await c.get('services').webhooks.emitTestEvent(platformIdOf(c.get('principal')), c.req.valid('json').type);
    return c.json(event, 201);
  })
  .openapi(stream, async (c) => {
    const after = c.req.valid('query').after ?? lastEventId(c.req.header('last-event-id'));
    const { after: start, run } = await c.get('services').events.openStream(platformIdOf(c.get('principal')), after);
    return streamSSE(c, async (sse) => {
      const stop = new AbortController();
      sse.onAbort(() => stop.abort());
      // A client that stops reading blocks a write forever: past the stream's lifetime it is cut.
      const cut = setTimeout(() => sse.abort(), STREAM_MAX_MS + 10_000);
      try {
        await sse.writeSSE({ event: 'ready', data: JSON.stringify({ after: start }) });
        await run((m) => (m.kind === 'ping' ? sse.write(': ping\n\n').then(() => undefined)
          : sse.writeSSE({ id: m.event.id, event: m.event.type, data: JSON.stringify(m.event) })), { signal: stop.signal });
      } finally {
        clearTimeout(cut);
      }
    }) as never;
  })
  .openapi(list, async (c) => {
    const page = await c.get('services').events.list(platformIdOf(c.get('principal')), c.req.valid('query'));
    return c.json(page, 200);
  })
  .openapi(get, async (c) => {
    const platformId = platformIdOf(c.get('principal'));
    const row = await c.get('services').events.get(platformId, c.req.valid('param').id);
    return c.json({ ...serializeEvent(row), deliveries: await c.get('services').webhooks.eventDeliveries(platformId, row.id) }, 200);
  });

/** The SSE reconnection header, used as `after` when it looks like an event id (anything else is ignored). */
function lastEventId(v: string | undefined): string | undefined {
  return v && /^[A-Za-z0-9_]{1,64}$/.test(v) ? v : undefined;
}
