import { createRoute } from '@hono/zod-openapi';
import { sessionActorOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse } from '../openapi.js';
import { OnboardSelfRequest, OnboardSelfResponse } from '../../modules/platforms/schemas.js';
import { serializeOnboarded } from '../../modules/platforms/serialize.js';

const route = createRoute({
  method: 'post',
  path: '/v1/onboarding/self',
  tags: ['Platforms'],
  summary: 'Create the platform of the signed-in account',
  description: 'Returns the secret key once; only its hash is stored.',
  ...access.session(),
  request: { headers: IdempotencyHeader, body: jsonBody(OnboardSelfRequest) },
  responses: { 201: jsonResponse(OnboardSelfResponse, 'Platform created'), ...errors(400, 401, 403, 409, 413, 422) },
});

export const platformRoutes = createRouter().openapi(route, async (c) => {
  const actor = sessionActorOf(c);
  const body = c.req.valid('json');
  // A platform on a chain this deployment does not run could never be paid: 422 unsupported_chain, nothing written.
  c.get('services').chains.get(body.chain_id);
  const result = await c.get('services').platforms.onboardSelf(actor, body);
  return c.json(serializeOnboarded(result), 201);
});
