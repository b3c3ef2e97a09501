import { createRoute } from '@hono/zod-openapi';
import { access, createRouter, errors, jsonBody, jsonResponse, listEnvelope, ListQuery, z } from '../openapi.js';
import { listUnmatchedTransfers } from '../../modules/indexer/unmatched.js';
import { Order } from '../../modules/orders/schemas.js';
import { serializeOrder } from '../../modules/orders/serialize.js';
import { cancellationOf } from '../../modules/order-cancellation/request.js';
import type { Services } from '../../services.js';

const ChainStatus = z.object({
  chain_id: z.number().int(), running: z.boolean(), cursor: z.string().nullable(), head: z.string().nullable(),
  lag: z.number().int().nullable(), confirmations: z.number().int(), last_error: z.string().nullable(),
  last_error_at: z.string().nullable(), last_run_at: z.string().nullable(), consecutive_errors: z.number().int(), logs_applied: z.number().int(),
  // Issue 15: from the database, so every role shows the instance that indexes.
  enabled: z.boolean().openapi({ description: 'Set by /_/indexer/start|stop, for every instance' }),
  cursor_block_time: z.string().nullable().openapi({ description: 'Chain time of the cursor block: every log up to it is applied' }),
  target: z.string().nullable().openapi({ description: 'The block read up to: min(head − confirmations, the finality tag\'s block)' }),
  finality: z.enum(['latest', 'safe', 'finalized']).openapi({ description: 'FINALITY_<chainId>' }),
  finality_source: z.enum(['depth', 'tag', 'depth_fallback']).nullable().openapi({ description: 'What set the target; depth_fallback: the RPC refused the tag' }),
  lease_holder: z.string().nullable().openapi({ description: 'Instance (host:pid:random) holding the chain\'s lease' }),
  lease_until: z.string().nullable(), heartbeat_at: z.string().nullable(),
});
const IndexerStatus = z.object({ running: z.boolean(), chains: z.array(ChainStatus) }).openapi('IndexerStatus');
const UnmatchedTransfer = z.object({
  id: z.string(), object: z.literal('unmatched_transfer'), chain_id: z.number().int(), token: z.string(), from: z.string(),
  value: z.string().openapi({ description: 'Base units' }), amount: z.string().openapi({ description: 'USDC, decimal' }),
  tx_hash: z.string(), block_number: z.string(), block_time: z.string(), log_index: z.number().int(),
  recovered: z.boolean().openapi({ description: 'An ExcessRecovered after it moved the router\'s excess out' }),
  recovered_tx_hash: z.string().nullable(), recovered_at: z.string().nullable(), created_at: z.string(),
}).openapi('UnmatchedTransfer');

const status = createRoute({
  method: 'get', path: '/_/indexer/status', tags: ['Operations'], summary: 'Indexer status per chain', ...access.admin(),
  responses: { 200: jsonResponse(IndexerStatus, 'Running, cursor, head, lag, last error, lease'), ...errors(401) },
});
const start = createRoute({
  method: 'post', path: '/_/indexer/start', tags: ['Operations'], summary: 'Start the chain indexer (on whichever instance indexes)', ...access.admin(),
  responses: { 200: jsonResponse(IndexerStatus, 'Status after starting'), ...errors(401) },
});
const stop = createRoute({
  method: 'post', path: '/_/indexer/stop', tags: ['Operations'], summary: 'Stop the chain indexer (on every instance; a range being applied finishes first)', ...access.admin(),
  responses: { 200: jsonResponse(IndexerStatus, 'Status after stopping'), ...errors(401) },
});
const unmatched = createRoute({
  method: 'get', path: '/_/unmatched-transfers', tags: ['Operations'], summary: 'USDC sent straight to the router (no order or refund pulled it) and not resolved (a front-run x402 payment attributed or returned is left out), newest first',
  ...access.admin(), request: { query: ListQuery },
  responses: { 200: jsonResponse(listEnvelope(UnmatchedTransfer, 'UnmatchedTransferList'), 'A page of unmatched transfers'), ...errors(401, 422) },
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
    .openapi(status, async (c) => c.json(await c.get('services').indexer.status(), 200))
    .openapi(start, async (c) => c.json(await c.get('services').indexer.enable(), 200))
    .openapi(stop, async (c) => c.json(await c.get('services').indexer.disable(), 200))
    .openapi(unmatched, async (c) => c.json(await listUnmatchedTransfers(c.get('services').database.db, c.req.valid('query')), 200))
    .openapi(fail, async (c) => {
      const order = await c.get('services').orderCancellation.request(c.req.valid('param').id, c.req.valid('json').reason);
      return c.json({ ...serializeOrder(order), cancellation: cancellationOf(order) }, 202);
    });
}
