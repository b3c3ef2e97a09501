import { createRoute } from '@hono/zod-openapi';
import { keyActorOf, platformIdOf, sessionActorOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonResponse, listEnvelope, ListQuery, z } from '../openapi.js';
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
const AuditEvent = z
  .object({
    id: z.string(),
    object: z.literal('audit_event'),
    action: z.enum(['key.created', 'key.rolled', 'key.revoked']).openapi({ description: 'key.created: a platform\'s first keys, at onboarding; key.rolled: a secret key created from the dashboard' }),
    key_id: z.string(),
    key_kind: z.enum(['secret', 'publishable']),
    key_hint: z.string(),
    actor: z.object({
      type: z.enum(['session', 'secret_key']),
      user_id: z.string().nullable().openapi({ description: 'The dashboard user (session)' }),
      email: z.string().nullable().openapi({ description: 'Their e-mail at the time (session)' }),
      key_id: z.string().nullable().openapi({ description: 'The secret key that acted (secret_key: it revoked itself)' }),
    }),
    client_address: z.string().nullable().openapi({ description: 'The client\'s address as the service saw it (behind TRUST_PROXY_HOPS proxies)' }),
    created_at: z.string(),
  })
  .openapi('AuditEvent');
const KeyParams = z.object({ id: z.string().max(64) });

const list = createRoute({
  method: 'get', path: '/v1/developers/keys', tags: ['API keys'], summary: 'List API keys: active first, then revoked, newest first within each',
  ...access.secretOrSession(), request: { query: ListQuery },
  responses: { 200: jsonResponse(listEnvelope(ApiKey, 'ApiKeyList'), 'A page of keys'), ...errors(401, 403, 422) },
});
const roll = createRoute({
  method: 'post', path: '/v1/developers/keys', tags: ['API keys'], summary: 'Create (roll) a secret key, from the dashboard',
  description: 'Dashboard session only: an API key gets 403 session_required. The new secret key is shown once; existing keys keep working until revoked. At most 20 active keys per platform (409 key_limit_reached).',
  ...access.session(), request: { headers: IdempotencyHeader },
  responses: { 201: jsonResponse(ApiKey, 'The new key, with its secret'), ...errors(401, 403, 409) },
});
const revoke = createRoute({
  method: 'post', path: '/v1/developers/keys/{id}/revoke', tags: ['API keys'], summary: 'Revoke a key at once',
  description: 'A session may revoke any key of its platform; a secret key only itself (another key of the platform: 403 forbidden).',
  ...access.secretOrSession(), request: { params: KeyParams, headers: IdempotencyHeader },
  responses: { 200: jsonResponse(ApiKey, 'The revoked key'), ...errors(401, 403, 404, 409) },
});
const auditLog = createRoute({
  method: 'get', path: '/v1/developers/audit_log', tags: ['API keys'], summary: 'Who created, rolled and revoked keys, when and from where; newest first',
  ...access.secretOrSession(), request: { query: ListQuery },
  responses: { 200: jsonResponse(listEnvelope(AuditEvent, 'AuditEventList'), 'A page of audit events'), ...errors(401, 403, 422) },
});

export const keyRoutes = createRouter()
  .openapi(list, async (c) => c.json(await c.get('services').keys.list(platformIdOf(c.get('principal')), c.req.valid('query')), 200))
  .openapi(roll, async (c) => {
    const { row, secretKey } = await c.get('services').keys.roll(platformIdOf(c.get('principal')), sessionActorOf(c));
    return c.json(serializeKey(row, secretKey), 201);
  })
  .openapi(revoke, async (c) => {
    const row = await c.get('services').keys.revoke(platformIdOf(c.get('principal')), c.req.valid('param').id, keyActorOf(c));
    return c.json(serializeKey(row), 200);
  })
  .openapi(auditLog, async (c) => c.json(await c.get('services').keys.auditLog(platformIdOf(c.get('principal')), c.req.valid('query')), 200));
