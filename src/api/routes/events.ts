import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, jsonResponse, listEnvelope, ListQuery, z } from '../openapi.js';
import { EventSchema } from '../schemas/events.js';
import { serializeEvent } from '../../modules/events/serialize.js';
import { EVENT_TYPES } from '../../modules/events/types.js';

/** A known event type (or the endpoint test's test.ping), or `prefix.*` where one starts with `prefix.`: a typo is a
 *  422, not an empty list. */
const FILTERABLE: readonly string[] = [...EVENT_TYPES, 'test.ping'];
const knownTypeOrPrefix = (v: string) => v.endsWith('.*') ? FILTERABLE.some((t) => t.startsWith(v.slice(0, -1))) : FILTERABLE.includes(v);

const EventsQuery = ListQuery.extend({
  type: z.string().max(64).regex(/^[a-z_]+(\.[a-z_]+)*(\.\*)?$/, 'must be an event type (order.confirmed) or a prefix (order.*)')
    .refine(knownTypeOrPrefix, 'is not an event type this service sends, nor a prefix of one').optional()
    .openapi({ description: 'Only events of this type, or of every type under a prefix: `order.*`', example: 'order.*' }),
  delivery_status: z.enum(['delivered', 'failed', 'pending']).optional().openapi({
    description: 'delivered: every delivery of the event succeeded; failed: at least one failed; pending: at least one is still pending and none failed. Events without deliveries match none.',
  }),
}).strict();
const EventParams = z.object({ id: z.string().max(64) });

const list = createRoute({
  method: 'get', path: '/v1/events', tags: ['Events'], summary: 'List events',
  description: 'Everything the service emitted for this platform, newest first, whether or not an endpoint was subscribed.',
  ...access.secretOrSession(), request: { query: EventsQuery },
  responses: { 200: jsonResponse(listEnvelope(EventSchema, 'EventList'), 'Events, newest first'), ...errors(401, 403, 422) },
});
const get = createRoute({
  method: 'get', path: '/v1/events/{id}', tags: ['Events'], summary: 'Retrieve an event',
  ...access.secretOrSession(), request: { params: EventParams },
  responses: { 200: jsonResponse(EventSchema, 'The event'), ...errors(401, 403, 404) },
});

export const eventRoutes = createRouter()
  .openapi(list, async (c) => {
    const page = await c.get('services').events.list(platformIdOf(c.get('principal')), c.req.valid('query'));
    return c.json(page, 200);
  })
  .openapi(get, async (c) => {
    const row = await c.get('services').events.get(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeEvent(row), 200);
  });
