import { z } from '@hono/zod-openapi';

export const RequestLog = z
  .object({
    id: z.string().openapi({ example: 'req_log_1042' }),
    object: z.literal('request_log'),
    request_id: z.string().openapi({ description: 'The X-Request-Id of the request (also in every error body)' }),
    method: z.string(),
    path: z.string(),
    status: z.number().int(),
    idempotency_key: z.string().nullable(),
    principal: z.object({
      type: z.enum(['secret_key', 'publishable_key', 'session']),
      key_id: z.string().optional(),
      user_id: z.string().optional(),
    }),
    duration_ms: z.number().int(),
    error_code: z.string().nullable(),
    request_body: z.string().nullable().openapi({ description: 'The body sent (every request with one), secret-named fields and key- or token-shaped text redacted, first 8 KB' }),
    response_body: z.string().nullable().openapi({ description: 'The JSON answer, redacted the same way, first 8 KB (null for a CSV export or an event stream)' }),
    created_at: z.string(),
  })
  .openapi('RequestLog');

export const RequestLogsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(200).optional(),
    request_id: z.string().max(128).optional(),
    status: z.string().regex(/^(4xx|5xx|[1-5][0-9]{2})$/, 'must be 4xx, 5xx or a status code').optional(),
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'get', 'post', 'put', 'patch', 'delete']).optional(),
    path: z.string().max(512).startsWith('/').optional().openapi({ description: 'Path prefix, e.g. /v1/orders' }),
  })
  .strict();

export const RequestIdParams = z.object({ request_id: z.string().max(128) });
