import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import { requestLogsRepo, type RequestLogInsert } from './repo.js';

export const MAX_QUEUED = 10_000;
export const BATCH_ROWS = 500;
const FLUSH_EVERY_MS = 1_000;
/** A platform is pruned after this many of its rows were written by this instance (so ≤ 10,000 + this are kept). */
const PRUNE_EVERY = 100;

/**
 * The request log's writer, off the request path: `add` only pushes to an in-memory queue; a timer (every
 * second, or as soon as BATCH_ROWS are queued) inserts up to BATCH_ROWS rows per statement. Memory is bounded
 * (MAX_QUEUED rows; each ≤ 2 × 8 KB of bodies, which only failures carry). When the queue is full a success is
 * dropped first, a failure only when the queue holds nothing else, and every drop is counted and logged (never
 * silent). A batch the database refuses is kept at the front of the queue and tried again. What is still queued
 * when a process dies (at most about a second of requests) is lost: the price of keeping the write off the
 * request path (docs/decisions.md, "Request log").
 */
// long: one closure over the queue, its timer and counters; each inner function is short
export function createRequestLogBuffer(db: Db, log: Logger) {
  let queue: RequestLogInsert[] = [];
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const sincePrune = new Map<string, number>();
  const stats = { written: 0, batches: 0, dropped: 0, droppedFailures: 0 };

  function makeRoom() {
    const i = queue.findIndex((r) => r.status < 400);
    const [gone] = queue.splice(i >= 0 ? i : 0, 1);
    stats.dropped++;
    if (gone!.status >= 400) stats.droppedFailures++;
    if (stats.dropped % 1000 === 1) log.warn({ dropped: stats.dropped, dropped_failures: stats.droppedFailures }, 'request log queue full: entries dropped');
  }

  async function writeBatch(batch: RequestLogInsert[]) {
    await requestLogsRepo.insertMany(db, batch);
    stats.written += batch.length;
    stats.batches++;
    for (const r of batch) sincePrune.set(r.platform_id, (sincePrune.get(r.platform_id) ?? PRUNE_EVERY - 1) + 1);
    for (const [platformId, n] of sincePrune) {
      if (n < PRUNE_EVERY) continue;
      sincePrune.set(platformId, 0);
      await requestLogsRepo.prune(db, platformId);
    }
  }

  async function drain() {
    while (queue.length > 0) {
      const batch = queue.slice(0, BATCH_ROWS);
      try {
        await writeBatch(batch);
        queue = queue.slice(batch.length);
      } catch (err) {
        log.warn({ err, queued: queue.length }, 'could not write the request log; kept for the next flush');
        return;
      }
    }
  }

  function flush(): Promise<void> {
    if (!flushing) flushing = drain().finally(() => { flushing = null; });
    return flushing;
  }

  function schedule() {
    if (timer) return;
    timer = setTimeout(() => { timer = null; void flush(); }, FLUSH_EVERY_MS);
    timer.unref();
  }

  return {
    add(row: RequestLogInsert) {
      if (queue.length >= MAX_QUEUED) makeRoom();
      queue.push(row);
      if (queue.length >= BATCH_ROWS) void flush();
      else schedule();
    },
    /** Writes what is queued now (the reads call it, so a request's own entry is there for the next call). */
    async flush() {
      await flush();
      if (queue.length > 0 && !flushing) await flush();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      await flush();
    },
    stats: () => ({ ...stats, queued: queue.length }),
  };
}

export type RequestLogBuffer = ReturnType<typeof createRequestLogBuffer>;
