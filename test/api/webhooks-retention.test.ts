import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/lib/clock.js';
import { createWebhookDeliverer } from '../../src/modules/webhooks/deliver.js';
import { pruneAttempts } from '../../src/modules/webhooks/prune-attempts.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * WEBHOOK_ATTEMPT_RETENTION_DAYS on real deliveries: attempts are stamped by a manual clock (the deliverer's and
 * the service's), the retention pass deletes those of finished deliveries past the retention, and the delivery's
 * summary stays what it was.
 */
const DAY = 86_400_000;
const clock = manualClock(Date.parse('2031-05-01T00:00:00Z'));
let h: Harness;
let a: Awaited<ReturnType<Harness['platform']>>;
let ok: Receiver;
let failing: Receiver;

beforeAll(async () => {
  h = await createHarness({ clock });
  a = await h.platform();
  ok = await startReceiver({ status: 200 });
  failing = await startReceiver({ status: 500, body: 'down' });
});
afterAll(async () => {
  await ok.close();
  await failing.close();
  await h.close();
});

const deliverer = () => createWebhookDeliverer({ db: h.db, config: { env: 'devnet' }, logger: h.services.logger, secrets: h.services.webhookSecrets, clock },
  { timeoutMs: 1_000, scheduleMs: [10, 10] });
const endpoint = async (url: string) =>
  (await h.request('POST', '/v1/webhooks/endpoints', { key: a.secretKey, body: { url, subscribed_events: ['*'] } })).body.id as string;
const ping = async (endpointId: string) =>
  (await h.request('POST', `/v1/webhooks/endpoints/${endpointId}/test`, { key: a.secretKey })).body.id as string;
const detail = async (id: string) => (await h.request('GET', `/v1/webhooks/deliveries/${id}`, { key: a.secretKey })).body;
const attemptRows = async (deliveryId: string) =>
  (await h.db.selectFrom('webhook_attempts').select(['id', 'attempted_at']).where('delivery_id', '=', deliveryId).orderBy('id').execute());

/** Runs the deliverer until the delivery is no longer pending (retries are 10 ms apart on the database clock). */
async function deliverUntilOver(id: string) {
  const d = deliverer();
  for (let i = 0; i < 50 && (await detail(id)).state === 'pending'; i++) {
    await d.runOnce();
    await new Promise((r) => setTimeout(r, 15));
  }
  await d.stop();
}

describe('webhook attempt retention', () => {
  it('deletes attempts of finished deliveries past the retention, never a retrying delivery\'s, and keeps every summary', async () => {
    const t0 = clock.now();
    const succeeded = await ping(await endpoint(ok.url()));
    await deliverUntilOver(succeeded);
    const failingEndpoint = await endpoint(failing.url());
    const failed = await ping(failingEndpoint);
    await deliverUntilOver(failed);
    // A delivery still retrying: one failed attempt, its next one far in the future (database clock).
    const retrying = await ping(await endpoint(failing.url('/slow')));
    const d = deliverer();
    await d.runOnce();
    await d.stop();
    await h.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date(Date.now() + 3_600_000) }).where('id', '=', retrying).execute();

    const before = { succeeded: await detail(succeeded), failed: await detail(failed), retrying: await detail(retrying) };
    expect(before.succeeded).toMatchObject({ state: 'succeeded', attempts: 1, last_status: 200, last_attempt_at: t0.toISOString() });
    expect(before.failed).toMatchObject({ state: 'failed', attempts: 3, last_status: 500, last_error: 'HTTP 500', last_attempt_at: t0.toISOString() });
    expect(before.failed.attempt_history).toHaveLength(3);
    expect(before.retrying).toMatchObject({ state: 'pending', attempts: 1 });

    // 29 days on: nothing is past the 30-day retention yet.
    clock.advance(29 * DAY);
    expect(await h.services.webhooks.pruneAttempts()).toBe(0);
    // A fresh success, 29 days after the others: kept by the pass below.
    const recent = await ping(await endpoint(ok.url('/recent')));
    await deliverUntilOver(recent);

    clock.advance(2 * DAY);
    expect(await h.services.webhooks.pruneAttempts()).toBe(4); // 1 (succeeded) + 3 (failed)

    for (const id of [succeeded, failed]) {
      expect(await attemptRows(id)).toEqual([]);
      const after = await detail(id);
      // The summary is the delivery's own: unchanged. The history lists what remains: nothing.
      const { attempt_history: _h, ...summary } = before[id === succeeded ? 'succeeded' : 'failed'];
      expect(after).toMatchObject({ ...summary, attempt_history: [] });
    }
    expect((await detail(retrying)).attempt_history).toHaveLength(1);
    expect(await attemptRows(recent)).toHaveLength(1);
    expect((await detail(recent)).attempt_history).toHaveLength(1);
    // Idempotent: a second pass finds nothing more.
    expect(await h.services.webhooks.pruneAttempts()).toBe(0);
  });

  it('deletes in batches, oldest first, and stops after maxBatches (the rest is left for the next pass)', async () => {
    const log = h.services.logger;
    await pruneAttempts(h.db, { before: new Date(clock.ms() + 1), log }); // what the test above left (finished) goes first
    const ep = await endpoint(ok.url('/batch'));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await ping(ep));
      await deliverUntilOver(ids[i]!);
      clock.advance(60_000);
    }
    const rows = await Promise.all(ids.map(attemptRows));
    expect(rows.map((r) => r.length)).toEqual([1, 1, 1, 1, 1]);
    const before = new Date(clock.ms() + 1);
    // Two batches of two: the four oldest go, the newest stays.
    expect(await pruneAttempts(h.db, { before, log, batch: 2, maxBatches: 2 })).toBe(4);
    expect((await Promise.all(ids.map(attemptRows))).map((r) => r.length)).toEqual([0, 0, 0, 0, 1]);
    expect(await pruneAttempts(h.db, { before, log, batch: 2, maxBatches: 2 })).toBe(1);
    expect(await attemptRows(ids[4]!)).toEqual([]);
    expect(await detail(ids[4]!)).toMatchObject({ state: 'succeeded', attempts: 1, last_status: 200, attempt_history: [] });
  });

  it('lists the delivery with its summary once its attempts are pruned (GET /v1/webhooks/endpoints/{id}/deliveries)', async () => {
    const ep = await endpoint(ok.url('/listed'));
    const id = await ping(ep);
    await deliverUntilOver(id);
    const at = (await detail(id)).last_attempt_at;
    clock.advance(31 * DAY);
    await h.services.webhooks.pruneAttempts();
    const listed = (await h.request('GET', `/v1/webhooks/endpoints/${ep}/deliveries`, { key: a.secretKey })).body.data;
    expect(listed).toEqual([expect.objectContaining({ id, state: 'succeeded', attempts: 1, last_attempt_at: at })]);
  });
});
