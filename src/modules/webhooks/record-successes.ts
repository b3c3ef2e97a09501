import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import { claimRepo, successRow, type ClaimedJob } from './repo.js';
import { detailOf, type SendResult } from './send.js';

/** An answered attempt waiting for its group commit: its row already serialised (repo.ts successRow). */
type Item = { id: string; row: string; leaseEndsAt: number; resolve: (o: 'succeeded' | 'lease_lost') => void; reject: (err: unknown) => void };

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2_000;
const MAX_BATCH = 500;
/**
 * Group commits in flight at once. Two were tried (issue 37): on PGlite (one connection, in this process) they made
 * smaller batches and doubled the time of a 360-delivery run; on PostgreSQL at load 9–16 no gain stood out of the
 * noise. Two writers may wait on each other only where both end a failure run of one endpoint.
 */
const WRITERS = 1;

/**
 * Group commit of successful attempts: a 2xx waits for the write in progress (if any) to end, then is
 * recorded with every other 2xx that arrived meanwhile, in one statement (claimRepo.finishSucceededMany). What each row records, and the compare-and-set on its lease, are those
 * of a single attempt's `record`. Other outcomes (retries, 410, disabling) keep their own path. While the
 * database is away the batch is held and written as soon as it answers, for the attempts whose lease has
 * not lapsed (as `recordDurably` does for one attempt); the others fail and are retried after the lease.
 */
export function createSuccessRecorder(db: Db, log: Logger, stopping: () => boolean) {
  let queue: Item[] = [];
  let writers = 0;

  async function write(batch: Item[]) {
    for (let waitMs = RETRY_FIRST_MS; batch.length > 0; waitMs = Math.min(waitMs * 2, RETRY_MAX_MS)) {
      try {
        // One statement (atomic on its own): no BEGIN and COMMIT round trips around it.
        const recorded = await claimRepo.finishSucceededMany(db, batch.map((i) => i.row));
        for (const i of batch) i.resolve(recorded.has(i.id) ? 'succeeded' : 'lease_lost');
        return;
      } catch (err) {
        const live = stopping() ? [] : batch.filter((i) => Date.now() + waitMs < i.leaseEndsAt);
        for (const i of batch) if (!live.includes(i)) i.reject(err);
        if (live.length > 0) log.warn({ err, deliveries: live.length, retry_in_ms: waitMs }, 'could not record webhook attempts; holding their outcome');
        batch = live;
        if (batch.length > 0) await new Promise((res) => setTimeout(res, waitMs));
      }
    }
  }

  async function flush() {
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      await write(batch);
    }
  }

  function kick() {
    if (writers >= WRITERS || queue.length === 0) return;
    writers++;
    void flush().finally(() => {
      writers--;
      kick();
    });
  }

  return {
    /** Resolves once the attempt is recorded: 'lease_lost' when another instance owns the row now. */
    record(job: ClaimedJob, attemptedAt: Date, result: SendResult, leaseEndsAt: number): Promise<'succeeded' | 'lease_lost'> {
      return new Promise((resolve, reject) => {
        const row = successRow({ id: job.id, token: job.lease_token, status: result.status!, attemptedAt, durationMs: result.durationMs, ...detailOf(result) });
        queue.push({ id: job.id, row, leaseEndsAt, resolve, reject });
        kick();
      });
    },
  };
}
