import { createRoute } from '@hono/zod-openapi';
import { createRouter, jsonResponse, z } from '../openapi.js';

const Health = z
  .object({
    ok: z.boolean(),
    env: z.string(),
    time_ms: z.number().int(),
    db: z.object({ ok: z.boolean(), latency_ms: z.number().int(), error: z.string().nullable() }),
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
  const { health } = c.get('services');
  const report = await health.check();
  return c.json(report, report.ok ? 200 : 503);
});
