import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse, listEnvelope, z } from '../openapi.js';
import { CreateRefundRequest, ListRefundsQuery, Refund } from '../../modules/refunds/schemas.js';
import { serializeRefund } from '../../modules/refunds/serialize.js';

const create = createRoute({
  method: 'post', path: '/v1/refunds', tags: ['Refunds'],
  summary: 'Refund part or all of a paid order: paid from its reserve first, the rest by the platform or merchant wallet',
  ...access.secretOrSession(),
  request: { headers: IdempotencyHeader, body: jsonBody(CreateRefundRequest) },
  responses: { 201: jsonResponse(Refund, 'The refund, pending (the service submits it) or requires_funding (your wallet submits it)'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});
const list = createRoute({
  method: 'get', path: '/v1/refunds', tags: ['Refunds'], summary: 'List refunds, newest first',
  ...access.secretOrSession(), request: { query: ListRefundsQuery },
  responses: { 200: jsonResponse(listEnvelope(Refund, 'RefundList'), 'A page of refunds'), ...errors(401, 403, 422) },
});
const get = createRoute({
  method: 'get', path: '/v1/refunds/{id}', tags: ['Refunds'], summary: 'One refund',
  ...access.secretOrSession(), request: { params: z.object({ id: z.string().max(64) }) },
  responses: { 200: jsonResponse(Refund, 'The refund'), ...errors(401, 403, 404) },
});
const cancel = createRoute({
  method: 'post', path: '/v1/refunds/{id}/cancel', tags: ['Refunds'],
  summary: 'Cancel an open refund on chain: it fails once the cancellation is confirmed, or completes if it executed first',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, params: z.object({ id: z.string().max(64) }) },
  responses: {
    202: jsonResponse(Refund, 'Cancellation asked: the refund is still open, with cancellation "pending"'),
    200: jsonResponse(Refund, 'A cancellation was already pending'),
    ...errors(401, 403, 404, 409),
  },
});

export const refundRoutes = createRouter()
  .openapi(create, async (c) => {
    const refund = await c.get('services').refunds.create(platformIdOf(c.get('principal')), c.req.valid('json'));
    return c.json(serializeRefund(refund), 201);
  })
  .openapi(list, async (c) => c.json(await c.get('services').refunds.list(platformIdOf(c.get('principal')), c.req.valid('query')), 200))
  .openapi(get, async (c) => {
    const refund = await c.get('services').refunds.get(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeRefund(refund), 200);
  })
  .openapi(cancel, async (c) => {
    const { refund, created } = await c.get('services').refunds.cancel(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return created ? c.json(serializeRefund(refund), 202) : c.json(serializeRefund(refund), 200);
  });
