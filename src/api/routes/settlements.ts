import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, jsonResponse, listEnvelope, ListQuery, z } from '../openapi.js';
import { Settlement } from '../../modules/settlements/schemas.js';

const list = createRoute({
  method: 'get', path: '/v1/settlements', tags: ['Settlements'],
  summary: 'Reserve-release batches carrying your orders, newest first (your orders and your total only)',
  ...access.secretOrSession(), request: { query: ListQuery },
  responses: { 200: jsonResponse(listEnvelope(Settlement, 'SettlementList'), 'A page of settlements'), ...errors(401, 403, 422) },
});
const get = createRoute({
  method: 'get', path: '/v1/settlements/{id}', tags: ['Settlements'], summary: 'One settlement batch, as your platform sees it',
  ...access.secretOrSession(), request: { params: z.object({ id: z.string().max(64) }) },
  responses: { 200: jsonResponse(Settlement, 'The settlement'), ...errors(401, 403, 404) },
});

export const settlementRoutes = createRouter()
  .openapi(list, async (c) => c.json(await c.get('services').settlements.list(platformIdOf(c.get('principal')), c.req.valid('query')), 200))
  .openapi(get, async (c) => c.json(await c.get('services').settlements.get(platformIdOf(c.get('principal')), c.req.valid('param').id), 200));
