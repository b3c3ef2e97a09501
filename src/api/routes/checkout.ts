import { createRoute } from '@hono/zod-openapi';
import { callerOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse } from '../openapi.js';
import { CheckoutSession, CreateSessionRequest, PublicCheckoutSession, SessionTokenParams } from '../../modules/checkout/schemas.js';

const create = createRoute({
  method: 'post', path: '/v1/checkout/sessions', tags: ['Checkout'], summary: 'Create a hosted checkout session (and its order)',
  ...access.secretOrSession(),
  request: { headers: IdempotencyHeader, body: jsonBody(CreateSessionRequest) },
  responses: { 201: jsonResponse(CheckoutSession, 'The session with its hosted URL'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});
const read = createRoute({
  method: 'get', path: '/v1/checkout/sessions/{token}', tags: ['Checkout'], summary: 'Read a session by its token (public; for the hosted page and success spinners)',
  ...access.public(), request: { params: SessionTokenParams },
  responses: { 200: jsonResponse(PublicCheckoutSession, 'State and the underlying order'), ...errors(401, 404) },
});

export const checkoutRoutes = createRouter()
  .openapi(create, async (c) => c.json(await c.get('services').checkout.create(callerOf(c.get('principal')), c.req.valid('json')), 201))
  .openapi(read, async (c) => {
    const json = await c.get('services').checkout.readPublicJson(c.req.valid('param').token);
    // The JSON text of a PublicCheckoutSession, serialised once and possibly cached (modules/checkout/public-cache.ts);
    // `never`: a body of text satisfies no typed JSON response, the openapi test checks it against the schema.
    return c.body(json, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }) as never;
  });
