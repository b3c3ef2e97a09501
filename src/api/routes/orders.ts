import { createRoute } from '@hono/zod-openapi';
import { callerOf, platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse, listEnvelope, z } from '../openapi.js';
import { CaptureOrderRequest, CreateOrderRequest, ListOrdersQuery, Order, OrderDetail, OrderSummary } from '../../modules/orders/schemas.js';
import { serializeOrder } from '../../modules/orders/serialize.js';

const create = createRoute({
  method: 'post', path: '/v1/orders', tags: ['Orders'], summary: 'Create an order: returns the router address, typed data and signature to pay it',
  ...access.secretOrSession(),
  request: { headers: IdempotencyHeader, body: jsonBody(CreateOrderRequest) },
  responses: { 201: jsonResponse(Order, 'The order in pending_payment'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});
const list = createRoute({
  method: 'get', path: '/v1/orders', tags: ['Orders'], summary: 'List orders, newest first',
  ...access.secretOrSession(), request: { query: ListOrdersQuery },
  responses: { 200: jsonResponse(listEnvelope(Order, 'OrderList'), 'A page of orders'), ...errors(401, 403, 422) },
});
const summary = createRoute({
  method: 'get', path: '/v1/orders/summary', tags: ['Orders'], summary: 'Counts and gross volume for dashboards',
  ...access.secretOrSession(),
  responses: { 200: jsonResponse(OrderSummary, 'Summary'), ...errors(401, 403) },
});
const get = createRoute({
  method: 'get', path: '/v1/orders/{id}', tags: ['Orders'], summary: 'One order',
  ...access.secretOrSession(), request: { params: z.object({ id: z.string().max(64) }) },
  responses: { 200: jsonResponse(OrderDetail, 'The order, with payment_method and payer'), ...errors(401, 403, 404) },
});

const IdParam = z.object({ id: z.string().max(64) });
const capture = createRoute({
  method: 'post', path: '/v1/orders/{id}/capture', tags: ['Orders'], summary: 'Capture an authorized order (capture_method manual), all or part',
  description: 'Sends capture(…) on chain: the captured amount is split (service fee, platform fee, merchant, reserve) at the order\'s frozen rates, the rest goes back to the payer in the same transaction. One capture per order. 202: the order, still authorized with capture_requested_at set; order.confirmed follows at confirmation depth.',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, params: IdParam, body: jsonBody(CaptureOrderRequest, 'Optional fields; {} or no body captures all of it') },
  responses: { 202: jsonResponse(Order, 'Capture requested'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});
const voidOrder = createRoute({
  method: 'post', path: '/v1/orders/{id}/void', tags: ['Orders'], summary: 'Void an authorized order (capture_method manual): the whole authorization back to the payer',
  description: 'Sends voidAuthorization(orderId) on chain. 202: the order, still authorized with void_requested_at set; order.voided (void_reason requested) follows at confirmation depth.',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, params: IdParam },
  responses: { 202: jsonResponse(Order, 'Void requested'), ...errors(401, 403, 404, 409) },
});

export const orderRoutes = createRouter()
  .openapi(create, async (c) => {
    // The service records this body for an Idempotency-Key in the order's transaction: serialized once, here.
    const { body } = await c.get('services').orders.create(callerOf(c.get('principal')), c.req.valid('json'), serializeOrder);
    return c.json(body, 201);
  })
  .openapi(list, async (c) => {
    const page = await c.get('services').orders.list(platformIdOf(c.get('principal')), c.req.valid('query'));
    return c.json({ ...page, data: page.data.map(serializeOrder) }, 200);
  })
  .openapi(summary, async (c) => c.json(await c.get('services').orders.summary(platformIdOf(c.get('principal'))), 200))
  .openapi(get, async (c) => {
    const order = await c.get('services').orders.get(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json({ ...serializeOrder(order), ...(await c.get('services').timelines.paymentOf(order)) }, 200);
  })
  .openapi(capture, async (c) => {
    const body = await c.get('services').authorizations.capture(platformIdOf(c.get('principal')), c.req.valid('param').id, c.req.valid('json'), serializeOrder);
    return c.json(body, 202);
  })
  .openapi(voidOrder, async (c) => {
    const body = await c.get('services').authorizations.void(platformIdOf(c.get('principal')), c.req.valid('param').id, serializeOrder);
    return c.json(body, 202);
  });
