import { createRoute } from '@hono/zod-openapi';
import { safeEqual } from '../../lib/ids.js';
import { createRouter, jsonResponse, z } from '../openapi.js';

const Health = z
  .object({
    ok: z.boolean(),
    env: z.string(),
    time_ms: z.number().int(),
    db: z.object({
      ok: z.boolean(),
      latency_ms: z.number().int(),
      error: z.string().nullable().openapi({ description: 'A generic reason; with the admin bearer, the driver\'s own (it may name hosts and ports)' }),
    }),
  })
  .openapi('Health');

const route = createRoute({
  method: 'get',
  path: '/health',
  tags: ['Health'],
  summary: 'Service and database health',
  responses: { 200: jsonResponse(Health, 'Healthy'), 503: jsonResponse(Health, 'The database is unreachable') },
});

export const healthRoutes = createRouter().openapi(route, async (c) => {
  const { health, config } = c.get('services');
  const { report, detail } = await health.check();
  if (detail !== null) {
    c.get('logger').warn({ db_error: detail }, 'health: database check failed');
    // Public route: the driver's reason only for an operator who proves it with the admin token.
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (bearer && config.adminToken && safeEqual(bearer, config.adminToken)) report.db.error = detail;
  }
  return c.json(report, report.ok ? 200 : 503);
});
