import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import type { Logger } from '../../src/lib/logger.js';
import { createMetrics } from '../../src/lib/metrics.js';
import { createRequestLogBuffer, rowBytes, ROW_OVERHEAD_BYTES } from '../../src/modules/request-logs/buffer.js';
import { MAX_STORED_BODY } from '../../src/modules/request-logs/redact.js';
import type { RequestLogInsert } from '../../src/modules/request-logs/repo.js';
import { freshDatabase } from '../helpers/harness.js';

/** REQUEST_LOG_QUEUE_MAX_BYTES: the queue is bounded by bytes as well as rows, on a real database. */
let database: Database;
beforeAll(async () => {
  database = await freshDatabase();
  await migrate(database.db);
});
afterAll(async () => { await database.close(); });

const MiB = 1024 * 1024;
let seq = 0;
const failure = (platformId: string): RequestLogInsert => ({
  platform_id: platformId, request_id: `req_q_${++seq}`, method: 'POST', path: '/v1/orders', status: 422, principal_type: 'secret_key',
  key_id: 'key_1', user_id: null, idempotency_key: null, duration_ms: 3, error_code: 'validation_failed',
  request_body: 'r'.repeat(MAX_STORED_BODY), response_body: 's'.repeat(MAX_STORED_BODY), created_at: new Date(),
});

function recordingLogger() {
  const warnings: { fields: Record<string, unknown>; msg: string }[] = [];
  const logger = { warn: (fields: Record<string, unknown>, msg: string) => warnings.push({ fields, msg }), info: () => {}, error: () => {} };
  return { logger: logger as unknown as Logger, warnings };
}

const countOf = async (platformId: string) =>
  Number((await sql<{ n: string }>`select count(*)::text as n from request_logs where platform_id = ${platformId}`.execute(database.db)).rows[0]!.n);

describe('request log queue, bounded by bytes', () => {
  it('estimates a row as its overhead plus two bytes per character of its strings', () => {
    const row = failure('plat_est');
    const chars = Object.values(row).filter((v): v is string => typeof v === 'string').reduce((n, v) => n + v.length, 0);
    expect(rowBytes(row)).toBe(ROW_OVERHEAD_BYTES + 2 * chars);
    expect(rowBytes(row)).toBeGreaterThan(4 * MAX_STORED_BODY);
  });

  it('drops the newest rows past the cap (counted, metric, log line), never blocks, and writes the rest', async () => {
    const { logger, warnings } = recordingLogger();
    const metrics = createMetrics();
    const buffer = createRequestLogBuffer(database.db, logger, { maxBytes: MiB, metrics });
    const pushed = Array.from({ length: 100 }, () => failure('plat_bytes'));
    for (const r of pushed) buffer.add(r); // synchronous: add never waits for the database
    const s = buffer.stats();
    let fits = 0;
    for (let total = 0; total + rowBytes(pushed[fits]!) <= MiB; fits++) total += rowBytes(pushed[fits]!);
    expect(fits).toBeGreaterThan(20);
    expect(s.queued).toBe(fits);
    expect(s.queuedBytes).toBeLessThanOrEqual(MiB);
    expect(s.queuedBytes).toBe(pushed.slice(0, fits).reduce((n, r) => n + rowBytes(r), 0));
    expect(s).toMatchObject({ dropped: 100 - fits, droppedOverBytes: 100 - fits, droppedFailures: 100 - fits });
    expect(warnings).toHaveLength(1); // the first drop, then every 1,000th
    expect(warnings[0]!.fields).toMatchObject({ dropped: 1, dropped_over_bytes: 1 });
    const metric = (await metrics.registry.getSingleMetric('trisettle_request_log_dropped_total')!.get()).values;
    expect(metric).toEqual([expect.objectContaining({ labels: { reason: 'bytes' }, value: 100 - fits })]);

    await buffer.flush();
    expect(buffer.stats()).toMatchObject({ queued: 0, queuedBytes: 0, written: fits });
    // The oldest were kept (the newest dropped): exactly the first `fits` request ids are in the table.
    const ids = (await sql<{ request_id: string }>`select request_id from request_logs where platform_id = 'plat_bytes' order by id`.execute(database.db)).rows.map((r) => r.request_id);
    expect(ids).toEqual(pushed.slice(0, fits).map((r) => r.request_id));

    // Room again once written.
    buffer.add(failure('plat_bytes'));
    expect(buffer.stats()).toMatchObject({ queued: 1, dropped: 100 - fits });
    await buffer.stop();
    expect(await countOf('plat_bytes')).toBe(fits + 1);
  });

  it('keeps the bytes of a batch being written counted until it is written, and accepts small rows under the cap', async () => {
    const { logger } = recordingLogger();
    const buffer = createRequestLogBuffer(database.db, logger, { maxBytes: MiB });
    for (let i = 0; i < 20; i++) buffer.add(failure('plat_inflight'));
    const flushing = buffer.flush(); // the batch is in flight now
    const big = rowBytes(failure('x'));
    const room = Math.floor((MiB - buffer.stats().queuedBytes) / big);
    for (let i = 0; i < room + 5; i++) buffer.add(failure('plat_inflight'));
    expect(buffer.stats().queuedBytes).toBeLessThanOrEqual(MiB);
    expect(buffer.stats().droppedOverBytes).toBe(5);
    await flushing;
    await buffer.stop();
    expect(buffer.stats()).toMatchObject({ queued: 0, queuedBytes: 0 });
    expect(await countOf('plat_inflight')).toBe(20 + room);
  });
});
