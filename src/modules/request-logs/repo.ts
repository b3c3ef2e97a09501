import { sql, type Insertable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { RequestLogsTable } from '../../db/schema.js';

export const KEEP_PER_PLATFORM = 10_000;

export type RequestLogInsert = Insertable<RequestLogsTable>;
export type RequestLogFilter = { requestId?: string; status?: string; method?: string; path?: string };

export const requestLogsRepo = {
  insertMany: (db: Executor, rows: RequestLogInsert[]) => db.insertInto('request_logs').values(rows).execute(),

  /** Keeps the platform's newest KEEP_PER_PLATFORM rows (one probe of request_logs_platform_idx). */
  prune: (db: Executor, platformId: string) =>
    sql`delete from request_logs where platform_id = ${platformId} and id <= (
          select id from request_logs where platform_id = ${platformId} order by id desc offset ${KEEP_PER_PLATFORM} limit 1)`.execute(db),

  list: (db: Executor, platformId: string, q: RequestLogFilter & { limit: number; before: bigint | null }) => {
    let query = db.selectFrom('request_logs').selectAll().where('platform_id', '=', platformId);
    if (q.before !== null) query = query.where('id', '<', q.before);
    if (q.requestId) query = query.where('request_id', '=', q.requestId);
    if (q.method) query = query.where('method', '=', q.method.toUpperCase());
    if (q.path) query = query.where('path', 'like', q.path.replace(/[\\%_]/g, (m) => '\\' + m) + '%');
    if (q.status === '4xx') query = query.where('status', '>=', 400).where('status', '<', 500);
    else if (q.status === '5xx') query = query.where('status', '>=', 500);
    else if (q.status) query = query.where('status', '=', Number(q.status));
    return query.orderBy('id', 'desc').limit(q.limit + 1).execute();
  },

  findByRequestId: (db: Executor, platformId: string, requestId: string) =>
    db.selectFrom('request_logs').selectAll().where('platform_id', '=', platformId).where('request_id', '=', requestId)
      .orderBy('id', 'desc').limit(1).executeTakeFirst(),
};
