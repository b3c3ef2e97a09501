import { createRoute } from '@hono/zod-openapi';
import { access, createRouter, errors, jsonBody, jsonResponse, z } from '../openapi.js';
import { Order } from '../../modules/orders/schemas.js';
import { serializeOrder } from '../../modules/orders/serialize.js';
import { cancellationOf } from '../../modules/order-cancellation/request.js';
import type { Services } from '../../services.js';

const ChainStatus = z.object({
  chain_id: z.number().int(), running: z.boolean(), cursor: z.string().nullable(), head: z.string().nullable(),
  lag: z.number().int().nullable(), confirmations: z.number().int(), last_error: z.string().nullable(),
  last_error_at: z.string().nullable(), last_run_at: z.string().nullable(), consecutive_errors: z.number().int(), logs_applied: z.number().int(),
});
const IndexerStatus = z.object({ running: z.boolean(), chains: z.array(ChainStatus) }).openapi('IndexerStatus');

const status = createRoute({
  method: 'get', path: '/_/indexer/status', tags: ['Operations'], summary: 'Indexer status per chain', ...access.admin(),
  responses: { 200: jsonResponse(IndexerStatus, 'Running, cursor, head, lag, last error'), ...errors(401) },
});
const start = createRoute({
  method: 'post', path: '/_/indexer/start', tags: ['Operations'], summary: 'Start the chain indexer in this instance', ...access.admin(),
  responses: { 200: jsonResponse(IndexerStatus, 'Status after starting'), ...errors(401) },
});
const stop = createRoute({
  method: 'post', path: '/_/indexer/stop', tags: ['Operations'], summary: 'Stop the chain indexer in this instance', ...access.admin(),
  responses: { 200: jsonResponse(IndexerStatus, 'Status after stopping'), ...errors(401) },
});
const metrics = createRoute({
  method: 'get', path: '/metrics', tags: ['Operations'], summary: 'Prometheus metrics', ...access.admin(),
  responses: {
    200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: z.string() } } },
    ...errors(401),
  },
});
const Cancellation = z.object({
  state: z.enum(['pending', 'cancelled', 'too_late']), reason: z.string().nullable(), requested_at: z.string(),
}).openapi('OrderCancellation');
const CancellingOrder = Order.extend({ cancellation: Cancellation.nullable() }).openapi('CancellingOrder');
const fail = createRoute({
  method: 'post', path: '/_/orders/{id}/fail', tags: ['Operations'],
  summary: 'Fail a pending order: cancels its PayOrder on chain; the order becomes failed (order.failed) once the cancellation is confirmed',
  ...access.admin(),
  request: { params: z.object({ id: z.string().max(64) }), body: jsonBody(z.object({ reason: z.string().min(1).max(500) }).strict()) },
  responses: {
    202: jsonResponse(CancellingOrder, 'Cancellation sent: the order is still pending_payment, with cancellation.state pending'),
    ...errors(401, 404, 409, 422),
  },
});

/**
 * Operator routes (/_/*, /metrics) need Authorization: Bearer <ADMIN_TOKEN>. With no ADMIN_TOKEN
 * configured they do not exist (404), so a misconfigured deployment exposes nothing.
 */
export function adminRoutes(services: Services) {
  const router = createRouter();
  if (!services.config.adminToken) return router;
  return router
    .openapi(metrics, async (c) => {
      const { registry } = c.get('services').metrics;
      return c.text(await registry.metrics(), 200, { 'Content-Type': registry.contentType });
    })
    .openapi(status, (c) => c.json(c.get('services').indexer.status(), 200))
    .openapi(start, (c) => {
      c.get('services').indexer.start();
      return c.json(c.get('services').indexer.status(), 200);
    })
    .openapi(stop, async (c) => {
      await c.get('services').indexer.stop();
      return c.json(c.get('services').indexer.status(), 200);
    })
    .openapi(fail, async (c) => {
      const order = await c.get('services').orderCancellation.request(c.req.valid('param').id, c.req.valid('json').reason);
      return c.json({ ...serializeOrder(order), cancellation: cancellationOf(order) }, 202);
    });
}
