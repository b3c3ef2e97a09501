import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import { retentionRepo, weekOf, PARTITIONED, type PartitionedTable } from './repo.js';

const DAY_MS = 86_400_000;
/** Weeks created ahead of the current one. */
export const WEEKS_AHEAD = 4;
/** Rows deleted per statement from a DEFAULT partition, and batches per table per pass at most. */
export const DEFAULT_BATCH = 1_000;
export const DEFAULT_MAX_BATCHES = 100;

export type RetentionPolicy = { eventDays: number; requestLogDays: number; operatorTxAttemptDays: number };
export type RetentionReport = { created: string[]; dropped: string[]; deletedFromDefault: Record<PartitionedTable, number>; skipped: string[]; operatorTxAttempts: number } | null;

/**
 * One retention pass over the week-partitioned tables (migration 034), by one instance at a time (advisory lock;
 * null when another instance holds it):
 * 1. the current week and WEEKS_AHEAD ahead get their partitions (a week whose rows already sit in DEFAULT is
 *    skipped and reported: they stay there, served, until step 3 deletes them past retention);
 * 2. whole weeks older than the retention are dropped: events' cutoff (EVENT_RETENTION_DAYS) for attempts, then
 *    deliveries, then events (a delivery's week is its event's; an attempt is never older than its event), and
 *    REQUEST_LOG_RETENTION_DAYS for request logs. A week is dropped once its end is past the cutoff;
 * 3. rows past the cutoff in a DEFAULT partition are deleted in batches (deliveries before their events);
 * 4. signed attempts of finished operator transactions past OPERATOR_TX_ATTEMPT_RETENTION_DAYS, in batches
 *    (not partitioned: docs/decisions.md).
 * Nothing is moved out of DEFAULT. Orders, refunds, settlements and the ledger are not partitioned or touched.
 */
export async function runRetentionPass(db: Db, o: { now: Date; policy: RetentionPolicy; log: Logger; batch?: number }): Promise<RetentionReport> {
  const batch = o.batch ?? DEFAULT_BATCH;
  return retentionRepo.exclusive(db, async (conn) => {
    const created: string[] = [];
    const skipped: string[] = [];
    const dropped: string[] = [];
    const thisWeek = weekOf(o.now);
    for (let w = 0; w <= WEEKS_AHEAD; w++) {
      const monday = new Date(thisWeek.getTime() + w * 7 * DAY_MS);
      for (const table of Object.keys(PARTITIONED) as PartitionedTable[]) {
        const r = await retentionRepo.ensureWeek(conn, table, monday);
        const label = `${table}@${monday.toISOString().slice(0, 10)}`;
        if (r === 'created') created.push(label);
        if (r === 'default_has_rows') skipped.push(label);
      }
    }
    const eventCutoff = new Date(o.now.getTime() - o.policy.eventDays * DAY_MS);
    const cutoffs: [PartitionedTable, Date][] = [
      ['webhook_attempts', eventCutoff], ['webhook_deliveries', eventCutoff], ['events', eventCutoff],
      ['request_logs', new Date(o.now.getTime() - o.policy.requestLogDays * DAY_MS)],
    ];
    const deletedFromDefault = { events: 0, webhook_deliveries: 0, webhook_attempts: 0, request_logs: 0 };
    for (const [table, cutoff] of cutoffs) {
      for (const week of await retentionRepo.weeks(conn, table)) {
        if (week.monday.getTime() + 7 * DAY_MS > cutoff.getTime()) continue;
        await retentionRepo.dropWeek(conn, table, week.name);
        dropped.push(week.name);
      }
      for (let i = 0; i < DEFAULT_MAX_BATCHES; i++) {
        const n = table === 'events'
          ? await retentionRepo.deleteEventsFromDefault(conn, cutoff, batch)
          : await retentionRepo.deleteFromDefault(conn, table, cutoff, batch);
        deletedFromDefault[table] += n;
        if (n < batch) break;
      }
    }
    const opCutoff = new Date(o.now.getTime() - o.policy.operatorTxAttemptDays * DAY_MS);
    let operatorTxAttempts = 0;
    for (let i = 0; i < DEFAULT_MAX_BATCHES; i++) {
      const n = await retentionRepo.deleteFinishedOperatorAttempts(conn, opCutoff, batch);
      operatorTxAttempts += n;
      if (n < batch) break;
    }
    if (skipped.length > 0) o.log.warn({ skipped }, 'week partitions not created: their DEFAULT partition holds rows of those weeks');
    if (dropped.length > 0 || created.length > 0 || operatorTxAttempts > 0) o.log.info({ created, dropped, deletedFromDefault, operatorTxAttempts }, 'retention pass');
    return { created, dropped, deletedFromDefault, skipped, operatorTxAttempts };
  });
}
