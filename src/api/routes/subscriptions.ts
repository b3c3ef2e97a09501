import { createRoute } from '@hono/zod-openapi';
import { callerOf, platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse, listEnvelope, z } from '../openapi.js';
import {
  AuthorizeSubscriptionRequest, CancelSubscriptionRequest, CreateSubscriptionRequest, ListSubscriptionsQuery, PublicSubscriptionAuthorization, ReadAuthorizationQuery,
  Subscription, SubscriptionTokenParams,
} from '../../modules/subscriptions/schemas.js';

const IdParam = z.object({ id: z.string().max(64) });
const create = createRoute({
  method: 'post', path: '/v1/subscriptions', tags: ['Subscriptions'], summary: 'Create a subscription: an authorization link the payer signs once',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, body: jsonBody(CreateSubscriptionRequest) },
  responses: { 201: jsonResponse(Subscription, 'The subscription (incomplete) with its hosted url'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});
const list = createRoute({
  method: 'get', path: '/v1/subscriptions', tags: ['Subscriptions'], summary: 'List subscriptions, newest first',
  ...access.secretOrSession(), request: { query: ListSubscriptionsQuery },
  responses: { 200: jsonResponse(listEnvelope(Subscription, 'SubscriptionList'), 'A page of subscriptions'), ...errors(401, 403, 422) },
});
const get = createRoute({
  method: 'get', path: '/v1/subscriptions/{id}', tags: ['Subscriptions'], summary: 'One subscription',
  ...access.secretOrSession(), request: { params: IdParam },
  responses: { 200: jsonResponse(Subscription, 'The subscription'), ...errors(401, 403, 404) },
});
const cancel = createRoute({
  method: 'post', path: '/v1/subscriptions/{id}/cancel', tags: ['Subscriptions'], summary: 'Cancel a subscription, at once or at the end of the current period',
  description: 'At once: canceled (canceled_by_platform) and the permission revoked on chain by the operator. at_period_end: no charge after the current period.',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, params: IdParam, body: jsonBody(CancelSubscriptionRequest, '{} or no body cancels at once') },
  responses: { 200: jsonResponse(Subscription, 'The subscription'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});
const readAuthorization = createRoute({
  method: 'get', path: '/v1/subscriptions/authorize/{token}', tags: ['Subscriptions'], summary: 'What the payer signs (public; for the hosted page)',
  ...access.public(), request: { params: SubscriptionTokenParams, query: ReadAuthorizationQuery },
  responses: { 200: jsonResponse(PublicSubscriptionAuthorization, 'Terms, typed data and allowance; once signed, the schedule and charges'), ...errors(401, 404, 422, 429) },
});
const authorize = createRoute({
  method: 'post', path: '/v1/subscriptions/authorize/{token}', tags: ['Subscriptions'], summary: 'Authorize a subscription with the payer\'s signature (public)',
  description: 'Verifies the SpendPermission signature (EOA, ERC-1271, ERC-6492), stores it and activates the subscription; the first charge is queued at once.',
  ...access.public(), request: { params: SubscriptionTokenParams, body: jsonBody(AuthorizeSubscriptionRequest) },
  responses: { 200: jsonResponse(Subscription, 'The subscription, active'), ...errors(400, 401, 404, 409, 413, 415, 422, 429, 503) },
});

// The public authorize routes first: /v1/subscriptions/authorize/cancel is a token, never a subscription id.
export const subscriptionRoutes = createRouter()
  .openapi(readAuthorization, async (c) => c.json(await c.get('services').subscriptions.readAuthorization(c.req.valid('param').token, c.req.valid('query')), 200, { 'Cache-Control': 'no-store' }))
  .openapi(authorize, async (c) => c.json(await c.get('services').subscriptions.authorize(c.req.valid('param').token, c.req.valid('json')), 200))
  .openapi(create, async (c) => c.json(await c.get('services').subscriptions.create(callerOf(c.get('principal')), c.req.valid('json')), 201))
  .openapi(list, async (c) => c.json(await c.get('services').subscriptions.list(platformIdOf(c.get('principal')), c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await c.get('services').subscriptions.get(platformIdOf(c.get('principal')), c.req.valid('param').id), 200))
  .openapi(cancel, async (c) => c.json(await c.get('services').subscriptions.cancel(platformIdOf(c.get('principal')), c.req.valid('param').id, c.req.valid('json') ?? {}), 200));
