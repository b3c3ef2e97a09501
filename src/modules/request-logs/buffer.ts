import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import { requestLogsRepo, type RequestLogInsert } from './repo.js';

export const MAX_QUEUED = 10_000;
/** REQUEST_LOG_QUEUE_MAX_BYTES's default: rows alone allowed ~160 MB (10,000 × 2 × 8 KB of bodies, two bytes a character). */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
export const BATCH_ROWS = 500;
/** What a queued row costs besides its strings (the object, its dates and numbers): an estimate, on the high side. */
export const ROW_OVERHEAD_BYTES = 256;

/** A queued row's memory, estimated: the overhead plus two bytes per character of each string it holds (UTF-16). */
export function rowBytes(r: RequestLogInsert): number {
  let chars = 0;
  for (const v of Object.values(r)) if (typeof v === 'string') chars += v.length;
  return ROW_OVERHEAD_BYTES + 2 * chars;
}
const FLUSH_EVERY_MS = 1_000;
/** A platform is pruned after this many of its rows were written by this instance (so ≤ 10,000 + this are kept). */
const PRUNE_EVERY = 100;

/**
 * The request log's writer, off the request path: `add` only pushes to an in-memory queue; a timer (every
 * second, or as soon as BATCH_ROWS are queued) inserts up to BATCH_ROWS rows per statement. Memory is bounded
 * twice: MAX_QUEUED rows, and `maxBytes` (REQUEST_LOG_QUEUE_MAX_BYTES, rowBytes: bodies, which every row may
 * carry, are up to 2 × 8 KB a row). When the rows are full a success is dropped first, a failure only when the
 * queue holds nothing else; a row that would take the queue past `maxBytes` is itself dropped (the newest: what is
 * queued is older and goes first). `add` never waits. Every drop is counted (stats, the
 * trisettle_request_log_dropped_total metric by reason) and logged (never silent). A batch the database refuses
 * is kept at the front of the queue and tried again. What is still queued
 * when a process dies (at most about a second of requests) is lost: the price of keeping the write off the
 * request path (docs/decisions.md, "Request log").
 */
// long: one closure over the queue, its timer and counters; each inner function is short
export function createRequestLogBuffer(db: Db, log: Logger, o: { maxBytes?: number; metrics?: Metrics } = {}) {
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
  let queue: RequestLogInsert[] = [];
  let bytes = 0;
  let inFlight = 0;
  let flushing: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const sincePrune = new Map<string, number>();
  const stats = { written: 0, batches: 0, dropped: 0, droppedFailures: 0, droppedOverBytes: 0 };

  function dropped(row: RequestLogInsert, reason: 'rows' | 'bytes') {
    stats.dropped++;
    if (row.status >= 400) stats.droppedFailures++;
    if (reason === 'bytes') stats.droppedOverBytes++;
    o.metrics?.requestLogDropped.inc({ reason });
    if (stats.dropped % 1000 === 1) {
      log.warn({ dropped: stats.dropped, dropped_failures: stats.droppedFailures, dropped_over_bytes: stats.droppedOverBytes, queued: queue.length, queued_bytes: bytes },
        'request log queue full: entries dropped');
    }
  }

  /** Never a row of the batch being written (the first `inFlight`): those leave the queue when it is written. */
  function makeRoom() {
    const i = queue.findIndex((r, n) => n >= inFlight && r.status < 400);
    const [gone] = queue.splice(i >= 0 ? i : inFlight, 1);
    bytes -= rowBytes(gone!);
    dropped(gone!, 'rows');
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
      inFlight = batch.length;
      try {
        await writeBatch(batch);
        queue = queue.slice(batch.length);
        for (const r of batch) bytes -= rowBytes(r);
      } catch (err) {
        log.warn({ err, queued: queue.length }, 'could not write the request log; kept for the next flush');
        return;
      } finally {
        inFlight = 0;
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
      const size = rowBytes(row);
      if (bytes + size > maxBytes) {
        dropped(row, 'bytes');
        return;
      }
      if (queue.length >= MAX_QUEUED) makeRoom();
      queue.push(row);
      bytes += size;
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
    stats: () => ({ ...stats, queued: queue.length, queuedBytes: bytes }),
  };
}

export type RequestLogBuffer = ReturnType<typeof createRequestLogBuffer>;
