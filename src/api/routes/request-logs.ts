import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, jsonResponse, listEnvelope } from '../openapi.js';
import { RequestIdParams, RequestLog, RequestLogsQuery } from '../../modules/request-logs/schemas.js';

const tags = ['Developers'];

const list = createRoute({
  method: 'get', path: '/v1/developers/request_logs', tags, summary: 'List the platform\'s API requests',
  description: 'The platform\'s last 10,000 API requests (secret key, publishable key, dashboard session), newest first. Failures carry their request and response bodies, secrets redacted. Filters: request_id, status (4xx, 5xx or a code), method, path prefix.',
  ...access.secretOrSession(), request: { query: RequestLogsQuery },
  responses: { 200: jsonResponse(listEnvelope(RequestLog, 'RequestLogList'), 'Requests, newest first'), ...errors(401, 403, 422) },
});
const get = createRoute({
  method: 'get', path: '/v1/developers/request_logs/{request_id}', tags, summary: 'Retrieve a request by its request id',
  description: 'The X-Request-Id of a response (and the request_id of every error body) finds its entry here.',
  ...access.secretOrSession(), request: { params: RequestIdParams },
  responses: { 200: jsonResponse(RequestLog, 'The request'), ...errors(401, 403, 404) },
});

export const requestLogRoutes = createRouter()
  .openapi(list, async (c) => {
    const q = c.req.valid('query');
    const page = await c.get('services').requestLogs.list(platformIdOf(c.get('principal')), {
      limit: q.limit, cursor: q.cursor, requestId: q.request_id, status: q.status, method: q.method, path: q.path,
    });
    return c.json(page, 200);
  })
  .openapi(get, async (c) => {
    const row = await c.get('services').requestLogs.get(platformIdOf(c.get('principal')), c.req.valid('param').request_id);
    return c.json(row, 200);
  });
