import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse, listEnvelope, ListQuery, z } from '../openapi.js';
import { CreateMerchantRequest, Merchant } from '../../modules/merchants/schemas.js';
import { serializeMerchant } from '../../modules/merchants/serialize.js';

const create = createRoute({
  method: 'post', path: '/v1/onboarding/merchants', tags: ['Merchants'], summary: 'Create a sub-merchant directly (active at once)',
  ...access.secretOrSession(),
  request: { headers: IdempotencyHeader, body: jsonBody(CreateMerchantRequest) },
  responses: { 201: jsonResponse(Merchant, 'The merchant'), ...errors(400, 401, 403, 409, 413, 422) },
});
const list = createRoute({
  method: 'get', path: '/v1/merchants', tags: ['Merchants'], summary: 'List merchants, newest first',
  ...access.secretOrSession(), request: { query: ListQuery },
  responses: { 200: jsonResponse(listEnvelope(Merchant, 'MerchantList'), 'A page of merchants'), ...errors(401, 403, 422) },
});
const get = createRoute({
  method: 'get', path: '/v1/merchants/{id}', tags: ['Merchants'], summary: 'One merchant (by id, or by external_id)',
  ...access.secretOrSession(), request: { params: z.object({ id: z.string().max(128) }) },
  responses: { 200: jsonResponse(Merchant, 'The merchant'), ...errors(401, 403, 404) },
});

export const merchantRoutes = createRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid('json');
    c.get('services').chains.get(body.chain_id); // 422 unsupported_chain before anything is written: it could never be paid
    const row = await c.get('services').merchants.create(platformIdOf(c.get('principal')), body);
    return c.json(serializeMerchant(row), 201);
  })
  .openapi(list, async (c) => c.json(await c.get('services').merchants.list(platformIdOf(c.get('principal')), c.req.valid('query')), 200))
  .openapi(get, async (c) => {
    const row = await c.get('services').merchants.get(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeMerchant(row), 200);
  });
