/**
 * The deliverer's batched paths (issue 20): successes recorded by group commit, keep-alive connections per
 * endpoint. Each delivery is still recorded once (one attempt row, succeeded, on its own lease), a lease
 * lost mid-batch is not recorded over, a database outage during a group commit holds the outcomes, and
 * the endpoint cap and the retry path are unchanged for what does not succeed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { emitEvents } from '../../src/modules/events/emit-many.js';
import { createWebhookDeliverer, type DelivererOptions } from '../../src/modules/webhooks/deliver.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let h: Harness;
const receivers: Receiver[] = [];
// A generous timeout: PGlite runs in this process and can hold the event loop while the receiver answers.
const FAST: DelivererOptions = { timeoutMs: 15_000, scheduleMs: [30, 30, 30] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await h.db.updateTable('webhook_deliveries').set({ state: 'failed', last_error: 'test cleanup' }).where('state', '=', 'pending').execute();
});
afterAll(() => h.close());

async function receiver(reply?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(reply);
  receivers.push(r);
  return r;
}
const deliverer = (opts: DelivererOptions = {}, db: Harness['db'] = h.db) =>
  createWebhookDeliverer({ db, config: { env: 'devnet' }, logger: h.services.logger, secrets: h.services.webhookSecrets }, { ...FAST, ...opts });

async function setup(n: number, endpoints = 1) {
  const p = await h.platform();
  const eps = [];
  for (let i = 0; i < endpoints; i++) {
    const r = await receiver();
    const res = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: r.url(), subscribed_events: ['*'] } });
    expect(res.status).toBe(201);
    eps.push({ id: res.body.id as string, r });
  }
  const ids = await h.db.transaction().execute((tx) => emitEvents(tx, Array.from({ length: n }, (_, i) => ({
    platformId: p.platformId, type: 'order.confirmed' as const, data: { object: { id: `ord_b${i}`, object: 'order' } },
  }))));
  return { p, eps, ids };
}

const rowsOf = (platformId: string) => h.db.selectFrom('webhook_deliveries').selectAll().where('platform_id', '=', platformId).execute();
const attemptCounts = async (platformId: string) => {
  const rows = await h.db.selectFrom('webhook_attempts as a').innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .select('a.delivery_id').where('d.platform_id', '=', platformId).execute();
  const n = new Map<string, number>();
  for (const r of rows) n.set(r.delivery_id, (n.get(r.delivery_id) ?? 0) + 1);
  return n;
};

async function until(what: string, cond: () => Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('webhook successes recorded by group commit', () => {
  it('records each of many deliveries once: one attempt, succeeded, each event received once per endpoint', async () => {
    const { p, eps, ids } = await setup(120, 3);
    const d = deliverer({ concurrency: 32, perEndpoint: 8 });
    d.start(25);
    try {
      await until('all succeeded', async () => (await rowsOf(p.platformId)).every((r) => r.state === 'succeeded'));
    } finally {
      await d.stop();
    }
    const rows = await rowsOf(p.platformId);
    expect(rows).toHaveLength(360);
    expect(rows.every((r) => r.attempts === 1 && r.last_status === 200 && r.delivered_at !== null && r.lease_token === null)).toBe(true);
    const attempts = await attemptCounts(p.platformId);
    expect(attempts.size).toBe(360);
    expect([...attempts.values()].every((n) => n === 1)).toBe(true);
    for (const ep of eps) {
      const got = ep.r.received.map((x) => x.headers['x-webhook-id']);
      expect(got).toHaveLength(120);
      expect(new Set(got)).toEqual(new Set(ids));
    }
  });

  it('does not record over a lease lost while the attempt was in flight; the rest of the batch is recorded', async () => {
    const { p, eps } = await setup(6);
    eps[0]!.r.setDefault({ status: 200, delayMs: 300 });
    const d = deliverer({ concurrency: 8, perEndpoint: 8 });
    const run = d.runOnce();
    await until('leased', async () => (await rowsOf(p.platformId)).filter((r) => r.lease_token !== null).length === 6);
    const [stolen] = await rowsOf(p.platformId);
    // Another instance took this row over (its lease lapsed, say): its token is not ours any more.
    await h.db.updateTable('webhook_deliveries').set({ lease_token: 'elsewhere' }).where('id', '=', stolen!.id).execute();
    expect(await run).toBe(6);
    const rows = await rowsOf(p.platformId);
    const other = rows.find((r) => r.id === stolen!.id)!;
    expect(other).toMatchObject({ state: 'pending', attempts: 0, lease_token: 'elsewhere' });
    expect(rows.filter((r) => r.state === 'succeeded')).toHaveLength(5);
    // The attempt itself is on record (it was sent), as for a single attempt whose lease was lost.
    expect((await attemptCounts(p.platformId)).get(stolen!.id)).toBe(1);
  });

  it('holds a batch of outcomes through a database outage and records them once it answers', async () => {
    const { p, eps } = await setup(10);
    eps[0]!.r.setDefault({ status: 200, delayMs: 200 });
    let down = false;
    // Every statement through this handle fails while `down`, as if PostgreSQL had gone away.
    const failing = new Proxy(h.db, {
      get(target, prop) {
        if (prop === 'transaction' && down) return () => ({ execute: async () => { throw new Error('Connection terminated unexpectedly'); } });
        if (prop === 'getExecutor' && down) {
          const real = target.getExecutor();
          return () => new Proxy(real, {
            get(t, k) {
              if (k === 'executeQuery') return async () => { throw new Error('Connection terminated unexpectedly'); };
              const v = Reflect.get(t, k, t);
              return typeof v === 'function' ? v.bind(t) : v;
            },
          });
        }
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const d = deliverer({ concurrency: 16, perEndpoint: 16 }, failing);
    const run = d.runOnce();
    await until('leased', async () => (await rowsOf(p.platformId)).filter((r) => r.lease_token !== null).length === 10);
    down = true; // the receiver answers during the outage
    await eps[0]!.r.waitFor(10, 5_000);
    await sleep(400);
    expect((await rowsOf(p.platformId)).filter((r) => r.state === 'succeeded')).toHaveLength(0);
    down = false;
    expect(await run).toBe(10);
    const rows = await rowsOf(p.platformId);
    expect(rows.every((r) => r.state === 'succeeded' && r.attempts === 1)).toBe(true);
    expect([...(await attemptCounts(p.platformId)).values()]).toEqual(Array(10).fill(1));
    expect(eps[0]!.r.received).toHaveLength(10);
  });

  it('keeps the retry path for failures in the same run as successes', async () => {
    const { p, eps } = await setup(4);
    eps[0]!.r.reply({ status: 500 });
    const d = deliverer({ concurrency: 8, perEndpoint: 1 });
    await d.runOnce();
    let rows = await rowsOf(p.platformId);
    expect(rows.filter((r) => r.state === 'pending' && r.attempts === 1 && r.last_status === 500)).toHaveLength(1);
    expect(rows.filter((r) => r.state === 'succeeded')).toHaveLength(0); // perEndpoint 1: one attempt only
    d.start(10);
    try {
      await until('all succeeded', async () => (await rowsOf(p.platformId)).every((r) => r.state === 'succeeded'));
    } finally {
      await d.stop();
    }
    rows = await rowsOf(p.platformId);
    expect(rows.map((r) => r.attempts).sort()).toEqual([1, 1, 1, 2]);
  });
});
