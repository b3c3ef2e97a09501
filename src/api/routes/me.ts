import { createRoute } from '@hono/zod-openapi';
import { access, createRouter, errors, jsonResponse, z } from '../openapi.js';

const Me = z
  .object({
    user_id: z.string().nullable(),
    platform_id: z.string().nullable(),
    platform_name: z.string().nullable().openapi({ description: 'Display name of the platform, once onboarded' }),
    auth_kind: z.enum(['session', 'secret_key', 'publishable_key']),
    onboarded: z.boolean(),
  })
  .openapi('Me');

const route = createRoute({
  method: 'get',
  path: '/v1/me',
  tags: ['Identity'],
  summary: 'Who is calling',
  ...access.anyKeyOrSession(),
  responses: { 200: jsonResponse(Me, 'The caller'), ...errors(401) },
});

export const meRoutes = createRouter().openapi(route, async (c) => {
  const p = c.get('principal');
  if (p.kind === 'session') {
    const name = p.platformId ? (await c.get('services').platforms.get(p.platformId)).name : null;
    return c.json({ user_id: p.userId, platform_id: p.platformId, platform_name: name, auth_kind: 'session' as const, onboarded: p.platformId !== null }, 200);
  }
  if (p.kind !== 'secret' && p.kind !== 'publishable') throw new Error('unreachable: guarded by requireAuth');
  const platform = await c.get('services').platforms.get(p.platformId);
  return c.json({
    // A publishable key is public (it ships in web pages): it does not learn who owns the platform.
    user_id: p.kind === 'secret' ? platform.user_id : null,
    platform_id: p.platformId,
    platform_name: platform.name,
    auth_kind: p.kind === 'secret' ? ('secret_key' as const) : ('publishable_key' as const),
    onboarded: true,
  }, 200);
});
