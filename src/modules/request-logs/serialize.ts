import type { Selectable } from 'kysely';
import type { RequestLogsTable } from '../../db/schema.js';

export type RequestLogRow = Selectable<RequestLogsTable>;

export function serializeRequestLog(r: RequestLogRow) {
  return {
    id: `req_log_${r.id}`,
    object: 'request_log' as const,
    request_id: r.request_id,
    method: r.method,
    path: r.path,
    status: r.status,
    idempotency_key: r.idempotency_key,
    principal: {
      type: r.principal_type,
      ...(r.key_id !== null ? { key_id: r.key_id } : {}),
      ...(r.user_id !== null ? { user_id: r.user_id } : {}),
    },
    duration_ms: r.duration_ms,
    error_code: r.error_code,
    request_body: r.request_body,
    response_body: r.response_body,
    created_at: r.created_at.toISOString(),
  };
}
