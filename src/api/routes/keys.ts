import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonResponse, listEnvelope, z } from '../openapi.js';
import { serializeKey } from '../../modules/keys/serialize.js';

const ApiKey = z
  .object({
    id: z.string(),
    object: z.literal('api_key'),
    kind: z.enum(['secret', 'publishable']),
    hint: z.string(),
    key: z.string().nullable().openapi({ description: 'Publishable keys always; a secret key only in the response that created it' }),
    state: z.enum(['active', 'revoked']),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi('ApiKey');
const KeyParams = z.object({ id: z.string().max(64) });

const list = createRoute({
  method: 'get', path: '/v1/developers/keys', tags: ['API keys'], summary: 'List API keys', ...access.secretOrSession(),
  responses: { 200: jsonResponse(listEnvelope(ApiKey, 'ApiKeyList'), 'Keys, newest first'), ...errors(401, 403) },
});
const roll = createRoute({
  method: 'post', path: '/v1/developers/keys', tags: ['API keys'], summary: 'Create (roll) a secret key',
  description: 'The new secret key is shown once. Existing keys keep working until revoked.',
  ...access.secretOrSession(), request: { headers: IdempotencyHeader },
  responses: { 201: jsonResponse(ApiKey, 'The new key, with its secret'), ...errors(401, 403, 409) },
});
const revoke = createRoute({
  method: 'post', path: '/v1/developers/keys/{id}/revoke', tags: ['API keys'], summary: 'Revoke a key at once',
  ...access.secretOrSession(), request: { params: KeyParams, headers: IdempotencyHeader },
  responses: { 200: jsonResponse(ApiKey, 'The revoked key'), ...errors(401, 403, 404, 409) },
});

export const keyRoutes = createRouter()
  .openapi(list, async (c) => {
    const rows = await c.get('services').keys.list(platformIdOf(c.get('principal')));
    return c.json({ object: 'list' as const, data: rows.map((r) => serializeKey(r)), has_more: false, next_cursor: null }, 200);
  })
  .openapi(roll, async (c) => {
    const { row, secretKey } = await c.get('services').keys.roll(platformIdOf(c.get('principal')));
    return c.json(serializeKey(row, secretKey), 201);
  })
  .openapi(revoke, async (c) => {
    const row = await c.get('services').keys.revoke(platformIdOf(c.get('principal')), c.req.valid('param').id);
    return c.json(serializeKey(row), 200);
  });
