import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse, listEnvelope, ListQuery, z } from '../openapi.js';
import {
  CreateEndpointRequest, DeletedWebhookEndpoint, IdParams, ReplayRequest, ReplayResponse, UpdateEndpointRequest, WebhookDelivery,
  WebhookDeliveryDetail, WebhookEndpoint,
} from '../../modules/webhooks/schemas.js';
import { serializeDeletedEndpoint, serializeEndpoint } from '../../modules/webhooks/serialize.js';

const tags = ['Webhooks'];

const create = createRoute({
  method: 'post', path: '/v1/webhooks/endpoints', tags, summary: 'Register a webhook endpoint',
  description: 'The response carries the signing secret (whsec_…); it is shown again only when rolled.',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, body: jsonBody(CreateEndpointRequest) },
  responses: { 201: jsonResponse(WebhookEndpoint, 'The endpoint, with its secret'), ...errors(400, 401, 403, 409, 413, 422) },
});
const list = createRoute({
  method: 'get', path: '/v1/webhooks/endpoints', tags, summary: 'List webhook endpoints',
  ...access.secretOrSession(), request: { query: ListQuery },
  responses: { 200: jsonResponse(listEnvelope(WebhookEndpoint, 'WebhookEndpointList'), 'Endpoints, newest first'), ...errors(401, 403, 422) },
});
const get = createRoute({
  method: 'get', path: '/v1/webhooks/endpoints/{id}', tags, summary: 'Retrieve a webhook endpoint',
  ...access.secretOrSession(), request: { params: IdParams },
  responses: { 200: jsonResponse(WebhookEndpoint, 'The endpoint (without its secret)'), ...errors(401, 403, 404) },
});
const remove = createRoute({
  method: 'delete', path: '/v1/webhooks/endpoints/{id}', tags, summary: 'Delete a webhook endpoint',
  description: 'Nothing more is sent to it; its pending deliveries are failed. Its delivery history is kept.',
  ...access.secretOrSession(), request: { params: IdParams, headers: IdempotencyHeader },
  responses: { 200: jsonResponse(DeletedWebhookEndpoint, 'Deleted'), ...errors(401, 403, 404, 409) },
});
const roll = createRoute({
  method: 'post', path: '/v1/webhooks/endpoints/{id}/roll-secret', tags, summary: 'Roll the signing secret',
  description: 'Returns the new secret. For 24 hours deliveries carry two signatures, `v1=<new>,v1=<old>`, so receivers can switch without dropping events.',
  ...access.secretOrSession(), request: { params: IdParams, headers: IdempotencyHeader },
  responses: { 200: jsonResponse(WebhookEndpoint, 'The endpoint, with its new secret'), ...errors(401, 403, 404, 409) },
});
const deliveries = createRoute({
  method: 'get', path: '/v1/webhooks/endpoints/{id}/deliveries', tags, summary: 'List deliveries to an endpoint',
  ...access.secretOrSession(), request: { params: IdParams, query: ListQuery },
  responses: { 200: jsonResponse(listEnvelope(WebhookDelivery, 'WebhookDeliveryList'), 'Deliveries, newest first'), ...errors(401, 403, 404, 422) },
});
const redeliver = createRoute({
  method: 'post', path: '/v1/webhooks/deliveries/{id}/redeliver', tags, summary: 'Send a delivery again now',
  description: 'Schedules an attempt now, whatever the delivery\'s state, with a fresh retry schedule. 409 while an attempt is in flight or if the endpoint is disabled.',
  ...access.secretOrSession(), request: { params: IdParams, headers: IdempotencyHeader },
  responses: { 200: jsonResponse(WebhookDelivery, 'The rescheduled delivery'), ...errors(401, 403, 404, 409) },
});

const replay = createRoute({
  method: 'post', path: '/v1/webhooks/endpoints/{id}/replay', tags, summary: 'Re-deliver a time range of events to an endpoint',
  description: 'Every event of the platform created in [since, until) that the endpoint subscribes to is sent again now (each with a fresh retry schedule; an attempt in flight is left to finish). At most 10,000 events per call. 409 if the endpoint is disabled.',
  ...access.secretOrSession(), request: { params: IdParams, headers: IdempotencyHeader, body: jsonBody(ReplayRequest) },
  responses: { 200: jsonResponse(ReplayResponse, 'How many events were scheduled'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});

const update = createRoute({
  method: 'post', path: '/v1/webhooks/endpoints/{id}', tags, summary: 'Update a webhook endpoint',
  description: 'Changes its URL (checked as on creation), subscribed events or description. Scheduled deliveries go to the new URL from their next attempt; new subscriptions apply to events emitted from now on.',
  ...access.secretOrSession(), request: { params: IdParams, headers: IdempotencyHeader, body: jsonBody(UpdateEndpointRequest) },
  responses: { 200: jsonResponse(WebhookEndpoint, 'The endpoint'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});
const pause = createRoute({
  method: 'post', path: '/v1/webhooks/endpoints/{id}/pause', tags, summary: 'Pause deliveries to an endpoint',
  description: 'No attempt is made while paused; deliveries (new ones too) wait, and go out in order once resumed. 409 if the endpoint is disabled.',
  ...access.secretOrSession(), request: { params: IdParams, headers: IdempotencyHeader },
  responses: { 200: jsonResponse(WebhookEndpoint, 'The endpoint, status paused'), ...errors(401, 403, 404, 409) },
});
const resume = createRoute({
  method: 'post', path: '/v1/webhooks/endpoints/{id}/resume', tags, summary: 'Resume deliveries to a paused endpoint',
  ...access.secretOrSession(), request: { params: IdParams, headers: IdempotencyHeader },
  responses: { 200: jsonResponse(WebhookEndpoint, 'The endpoint, status enabled'), ...errors(401, 403, 404, 409) },
});
const TestEventRequest = z.object({
  type: z.string().max(64).optional().openapi({ description: 'The event type to send: `test.ping` (default) or any type the service emits (a sample object with `test: true`)', example: 'order.confirmed' }),
}).strict().openapi('TestEventRequest');
const sendTest = createRoute({
  method: 'post', path: '/v1/webhooks/endpoints/{id}/test', tags, summary: 'Send a test event to an endpoint',
  description: 'Creates a signed test event delivered to this endpoint only, recorded like any delivery: `test.ping` without a body, or `{"type": "order.confirmed"}` for a sample of that type (its object has ids like `ord_test_…` and `test: true`; a type the service does not send is 422). At most 30 a minute per platform; 409 if the endpoint is disabled (a paused one receives it when resumed).',
  ...access.secretOrSession(), request: { params: IdParams, headers: IdempotencyHeader, body: { ...jsonBody(TestEventRequest), required: false } },
  responses: { 201: jsonResponse(WebhookDelivery, 'The delivery of the test event'), ...errors(400, 401, 403, 404, 409, 413, 415, 422, 429) },
});
const getDelivery = createRoute({
  method: 'get', path: '/v1/webhooks/deliveries/{id}', tags, summary: 'Retrieve a delivery with every attempt',
  description: 'Each attempt with the request sent (URL, headers including the signatures, body) and the answer (status, headers, first 4,096 bytes of the body), or the error.',
  ...access.secretOrSession(), request: { params: IdParams },
  responses: { 200: jsonResponse(WebhookDeliveryDetail, 'The delivery'), ...errors(401, 403, 404) },
});

export const webhookRoutes = createRouter()
  .openapi(update, async (c) => {
    const row = await c.get('services').webhooks.updateEndpoint(platformIdOf(c.get('principal')), c.req.valid('param').id, c.req.valid('json'));
    return c.json(serializeEndpoint(row), 200);
  })
  .openapi(pause, async (c) => {
    const row = await c.get('services').webhooks.pauseEndpoint(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeEndpoint(row), 200);
  })
  .openapi(resume, async (c) => {
    const row = await c.get('services').webhooks.resumeEndpoint(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeEndpoint(row), 200);
  })
  .openapi(sendTest, async (c) => {
    const view = await c.get('services').webhooks.sendTestEvent(platformIdOf(c.get('principal')), c.req.valid('param').id, c.req.valid('json')?.type);
    return c.json(view, 201);
  })
  .openapi(getDelivery, async (c) => {
    const view = await c.get('services').webhooks.getDelivery(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(view, 200);
  })
  .openapi(create, async (c) => {
    const { row, secret } = await c.get('services').webhooks.createEndpoint(platformIdOf(c.get('principal')), c.req.valid('json'));
    return c.json(serializeEndpoint(row, secret), 201);
  })
  .openapi(list, async (c) => {
    const page = await c.get('services').webhooks.listEndpoints(platformIdOf(c.get('principal')), c.req.valid('query'));
    return c.json(page, 200);
  })
  .openapi(get, async (c) => {
    const row = await c.get('services').webhooks.getEndpoint(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeEndpoint(row), 200);
  })
  .openapi(remove, async (c) => {
    const row = await c.get('services').webhooks.deleteEndpoint(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeDeletedEndpoint(row), 200);
  })
  .openapi(roll, async (c) => {
    const { row, secret } = await c.get('services').webhooks.rollSecret(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeEndpoint(row, secret), 200);
  })
  .openapi(deliveries, async (c) => {
    const p = platformIdOf(c.get('principal'));
    const page = await c.get('services').webhooks.listDeliveries(p, c.req.valid('param').id, c.req.valid('query'));
    return c.json(page, 200);
  })
  .openapi(replay, async (c) => {
    const body = await c.get('services').webhooks.replay(platformIdOf(c.get('principal')), c.req.valid('param').id, c.req.valid('json'));
    return c.json(body, 200);
  })
  .openapi(redeliver, async (c) => {
    const view = await c.get('services').webhooks.redeliver(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(view, 200);
  });
