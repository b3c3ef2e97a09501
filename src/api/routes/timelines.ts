import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, jsonResponse, z } from '../openapi.js';

const TimelineItem = z.object({
  at: z.string(),
  kind: z.string().openapi({ description: 'order.created, order.paid, order.confirmed, order.captured, order.voided, refund.created, refund.completed, settlement.created, settlement.completed, event, transaction, …' }),
  title: z.string(),
  event_id: z.string().optional(),
  event_type: z.string().optional(),
  deliveries: z.array(z.object({ id: z.string(), status: z.string(), attempts: z.number().int(), endpoint_id: z.string(), endpoint_url: z.string() })).optional(),
  tx_hash: z.string().nullable().optional(),
  block_number: z.number().int().optional(),
  explorer_url: z.string().nullable().optional().openapi({ description: 'The transaction on the chain\'s explorer; null on the devnet' }),
}).passthrough().openapi('TimelineItem');
const Timeline = z.object({ object: z.literal('list'), data: z.array(TimelineItem) }).openapi('Timeline');
const Params = z.object({ id: z.string().max(128) });
const description = 'Everything that happened to it, oldest first: state changes, refunds, captures, settlements, every event with its deliveries, every on-chain transaction.';

const route = (resource: string, tag: string) => createRoute({
  method: 'get', path: `/v1/${resource}/{id}/timeline`, tags: [tag], summary: `The ${resource.slice(0, -1)}'s timeline`, description,
  ...access.secretOrSession(), request: { params: Params },
  responses: { 200: jsonResponse(Timeline, 'Timeline, oldest first'), ...errors(401, 403, 404) },
});

export const timelineRoutes = createRouter()
  .openapi(route('orders', 'Orders'), async (c) =>
    c.json(await c.get('services').timelines.order(platformIdOf(c.get('principal')), c.req.valid('param').id), 200))
  .openapi(route('refunds', 'Refunds'), async (c) =>
    c.json(await c.get('services').timelines.refund(platformIdOf(c.get('principal')), c.req.valid('param').id), 200))
  .openapi(route('merchants', 'Merchants'), async (c) =>
    c.json(await c.get('services').timelines.merchant(platformIdOf(c.get('principal')), c.req.valid('param').id), 200));
