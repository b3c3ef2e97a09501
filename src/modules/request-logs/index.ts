import type { Db } from '../../db/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import { createRequestLogBuffer } from './buffer.js';
import { requestLogsRepo, type RequestLogFilter, type RequestLogInsert } from './repo.js';
import { serializeRequestLog } from './serialize.js';

export { MAX_READ_BODY, redactBody, redactText } from './redact.js';

const encode = (id: bigint) => Buffer.from(String(id)).toString('base64url');
function decode(cursor: string | undefined): bigint | null {
  if (!cursor) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^[0-9]{1,19}$/.test(text)) throw new AppError('validation_failed', 'cursor is not a cursor returned by this API', 'cursor');
  return BigInt(text);
}

/** The platform's API requests (GET /v1/developers/request_logs); written by the buffer, newest first. */
export function createRequestLogs(db: Db, log: Logger, o: { maxBytes?: number; metrics?: Metrics } = {}) {
  const buffer = createRequestLogBuffer(db, log, o);
  return {
    record: (row: RequestLogInsert) => buffer.add(row),
    flush: () => buffer.flush(),
    stop: () => buffer.stop(),
    stats: () => buffer.stats(),

    async list(platformId: string, q: RequestLogFilter & { limit: number; cursor?: string }) {
      const before = decode(q.cursor);
      await buffer.flush();
      const rows = await requestLogsRepo.list(db, platformId, { ...q, before });
      const more = rows.length > q.limit;
      const page = more ? rows.slice(0, q.limit) : rows;
      return { object: 'list' as const, data: page.map(serializeRequestLog), has_more: more, next_cursor: more ? encode(page.at(-1)!.id) : null };
    },

    async get(platformId: string, requestId: string) {
      await buffer.flush();
      const row = await requestLogsRepo.findByRequestId(db, platformId, requestId);
      if (!row) throw notFound('request log');
      return serializeRequestLog(row);
    },
  };
}

export type RequestLogs = ReturnType<typeof createRequestLogs>;
