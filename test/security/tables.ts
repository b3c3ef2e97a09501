import { sql } from 'kysely';
import type { Harness } from '../helpers/harness.js';

/** Row count of every table in the public schema: "writes nothing" means this map is unchanged. */
export async function rowCounts(h: Harness): Promise<Record<string, number>> {
  const tables = await sql<{ t: string }>`select table_name as t from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`.execute(h.db);
  const out: Record<string, number> = {};
  // The request log records every request, refused ones too (written later, in batches): it is not a write of the request.
  // Its rows live in week partitions (request_logs_pYYYYMMDD, request_logs_default, migration 034).
  for (const { t } of tables.rows) if (t !== 'request_logs' && !t.startsWith('request_logs_')) out[t] = await h.count(t);
  return out;
}
