import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { emitEvent, type EventType } from '../../src/modules/events/service.js';
import { createWebhookDeliverer, type DelivererOptions } from '../../src/modules/webhooks/deliver.js';
import { claimRepo } from '../../src/modules/webhooks/repo.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let h: Harness;
const receivers: Receiver[] = [];
const FAST: DelivererOptions = { timeoutMs: 1_000, scheduleMs: [30, 30, 30, 30, 30, 30, 30] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  // One database per file: settle what a test left pending so the next test's deliverer sees only its own.
  await h.db.updateTable('webhook_deliveries').set({ state: 'failed', last_error: 'test cleanup' }).where('state', '=', 'pending').execute();
});
afterAll(() => h.close());

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}
const deliverer = (opts: DelivererOptions = {}, env: 'devnet' | 'production' = 'devnet', db: Harness['db'] = h.db) =>
  createWebhookDeliverer({ db, config: { env }, logger: h.services.logger, secrets: h.services.webhookSecrets }, { ...FAST, ...opts });

/** The test database whose transactions fail while `failing()` holds, as if PostgreSQL had gone away. */
const bound = <T extends object>(target: T, prop: string | symbol) => {
  const v = Reflect.get(target, prop, target);
  return typeof v === 'function' ? v.bind(target) : v;
};
const lost = async () => {
  throw new Error('Connection terminated unexpectedly');
};
/** The deliverer's database while `failing()` says it is away: every transaction and every statement fails. */
const failingDatabase = (failing: () => boolean) => new Proxy(h.db, {
  get(target, prop) {
    if (prop === 'transaction' && failing()) return () => ({ execute: lost });
    // A raw statement (sql`…`.execute(db)) asks for an executor: one whose queries fail.
    if (prop === 'getExecutor' && failing()) {
      return () => new Proxy(target.getExecutor(), { get: (ex, p) => (p === 'executeQuery' ? lost : bound(ex, p)) });
    }
    return bound(target, prop);
  },
});

async function endpoint(key: string, url: string, subscribed_events: string[] = ['*']) {
  const res = await h.request('POST', '/v1/webhooks/endpoints', { key, body: { url, subscribed_events } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}
const emit = (platformId: string, type: EventType = 'order.confirmed', object: Record<string, unknown> = { id: 'ord_1', object: 'order', metadata: { sku: 'A-1' } }) =>
  emitEvent(h.db, { platformId, type, data: { object } });

const deliveriesOf = (eventId: string) =>
  h.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute();
const deliveryTo = async (eventId: string, endpointId: string) =>
  h.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow();
const attemptsOf = (deliveryId: string) =>
  h.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();

/** Runs the deliverer until `done` holds (retries are due every ~30 ms with FAST). */
async function drainUntil(d: ReturnType<typeof deliverer>, done: () => Promise<boolean>, ms = 8_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await d.runOnce();
    if (await done()) return;
    await sleep(15);
  }
  throw new Error('drainUntil: condition not reached');
}

/** Independent of src/: what a receiver's verification does. */
const hmac = (secret: string, ts: string, body: string) => createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
const v1s = (header: string) => header.split(',').map((p) => p.replace(/^v1=/, ''));

describe('delivery', () => {
  it('signs each delivery over "<timestamp>.<rawBody>" with the endpoint secret', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId, 'order.confirmed', { id: 'ord_x', object: 'order', amount: 25_000_000n, metadata: { note: 'é' } });
    expect(await deliverer().runOnce()).toBe(1);
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe('Trisettle-Webhooks/1');
    expect(got.headers['x-webhook-id']).toBe(event.id);
    const ts = got.headers['x-webhook-timestamp'] as string;
    expect(Math.abs(Number(ts) - Date.now() / 1000)).toBeLessThan(5);
    expect(got.headers['x-webhook-signature']).toBe(`v1=${hmac(ep.secret, ts, got.rawBody)}`);
    expect(JSON.parse(got.rawBody)).toEqual({
      id: event.id, type: 'order.confirmed', created_at: event.created_at.toISOString(),
      data: { object: { id: 'ord_x', object: 'order', amount: '25000000', metadata: { note: 'é' } } },
    });
    const d = await deliveryTo(event.id, ep.id);
    expect(d).toMatchObject({ state: 'succeeded', attempts: 1, last_status: 200, last_error: null, locked_until: null });
    expect(d.delivered_at).toBeInstanceOf(Date);
    const attempts = await attemptsOf(d.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: 200, error: null });
  });

  it('delivers an event once to each subscribed endpoint and never to others', async () => {
    const p = await h.platform();
    const other = await h.platform();
    const [r1, r2, r3, r4, r5] = await Promise.all([receiver(), receiver(), receiver(), receiver(), receiver()]);
    const exact = await endpoint(p.secretKey, r1!.url(), ['order.confirmed']);
    const all = await endpoint(p.secretKey, r2!.url(), ['*']);
    await endpoint(p.secretKey, r3!.url(), ['refund.completed']);
    const deleted = await endpoint(p.secretKey, r4!.url(), ['order.confirmed']);
    await h.request('DELETE', `/v1/webhooks/endpoints/${deleted.id}`, { key: p.secretKey });
    await endpoint(other.secretKey, r5!.url(), ['*']);

    const event = await emit(p.platformId, 'order.confirmed');
    const rows = await deliveriesOf(event.id);
    expect(rows.map((d) => d.endpoint_id).sort()).toEqual([exact.id, all.id].sort());
    expect(rows.every((d) => d.state === 'pending' && d.platform_id === p.platformId)).toBe(true);

    const d = deliverer();
    expect(await d.runOnce()).toBe(2);
    expect(await d.runOnce()).toBe(0);
    expect([r1, r2, r3, r4, r5].map((r) => r!.received.length)).toEqual([1, 1, 0, 0, 0]);
    expect(r1!.received[0]!.rawBody).toBe(r2!.received[0]!.rawBody);
  });

  it('is written in the caller\'s transaction: a rollback leaves neither event nor delivery', async () => {
    const p = await h.platform();
    await endpoint(p.secretKey, 'http://127.0.0.1:9/hook');
    const [events, deliveries] = [await h.count('events'), await h.count('webhook_deliveries')];
    await expect(h.db.transaction().execute(async (tx) => {
      await emitEvent(tx, { platformId: p.platformId, type: 'order.failed', data: { object: { id: 'ord_y' } } });
      throw new Error('state change failed');
    })).rejects.toThrow('state change failed');
    expect(await h.count('events')).toBe(events);
    expect(await h.count('webhook_deliveries')).toBe(deliveries);
  });

  it('retries while the receiver answers 500 and delivers once it is back', async () => {
    const p = await h.platform();
    const r = await receiver();
    r.reply({ status: 500 }, { status: 500 }, { status: 503 });
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    const d = deliverer();
    expect(await d.runOnce()).toBe(1);
    const afterFirst = await deliveryTo(event.id, ep.id);
    expect(afterFirst).toMatchObject({ state: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500' });
    await drainUntil(d, async () => (await deliveryTo(event.id, ep.id)).state === 'succeeded');
    const done = await deliveryTo(event.id, ep.id);
    expect(done).toMatchObject({ attempts: 4, last_status: 200, last_error: null });
    expect((await attemptsOf(done.id)).map((a) => a.status)).toEqual([500, 500, 503, 200]);
    expect(r.received).toHaveLength(4);
    expect(new Set(r.received.map((x) => x.rawBody)).size).toBe(1);
    expect(new Set(r.received.map((x) => x.headers['x-webhook-id'])).size).toBe(1);
  });

  it('keeps retrying while the receiver is down (connection refused)', async () => {
    const p = await h.platform();
    const r = await receiver();
    const url = r.url();
    await r.close();
    receivers.splice(receivers.indexOf(r), 1);
    const ep = await endpoint(p.secretKey, url);
    const event = await emit(p.platformId);
    await deliverer().runOnce();
    const row = await deliveryTo(event.id, ep.id);
    expect(row).toMatchObject({ state: 'pending', attempts: 1, last_status: null });
    expect(row.last_error).toMatch(/ECONNREFUSED/);
  });

  it('gives up after the last retry of the schedule', async () => {
    const p = await h.platform();
    const r = await receiver();
    r.setDefault({ status: 500 });
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    const d = deliverer({ scheduleMs: [10, 10] });
    await drainUntil(d, async () => (await deliveryTo(event.id, ep.id)).state === 'failed');
    expect(await deliveryTo(event.id, ep.id)).toMatchObject({ attempts: 3, last_status: 500 });
    await sleep(50);
    expect(await d.runOnce()).toBe(0);
    expect(r.received).toHaveLength(3);
  });

  it('counts a 302 as a failure and does not follow it', async () => {
    const p = await h.platform();
    const [r, target] = await Promise.all([receiver(), receiver()]);
    r.reply({ status: 302, headers: { Location: target.url('/elsewhere') } });
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    await deliverer().runOnce();
    const row = await deliveryTo(event.id, ep.id);
    expect(row).toMatchObject({ state: 'pending', attempts: 1, last_status: 302 });
    expect(row.last_error).toMatch(/redirect/);
    expect(target.received).toHaveLength(0);
  });

  it('honours Retry-After (seconds and HTTP date) as "not before"', async () => {
    const p = await h.platform();
    const r = await receiver();
    r.reply({ status: 503, headers: { 'Retry-After': '3' } }, { status: 429, headers: { 'Retry-After': new Date(Date.now() + 60_000).toUTCString() } });
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    const d = deliverer();
    await d.runOnce();
    let row = await deliveryTo(event.id, ep.id);
    const [dbNow] = (await h.db.selectNoFrom((eb) => eb.fn<Date>('now').as('now')).execute()).map((x) => x.now);
    expect(row.next_attempt_at.getTime() - dbNow!.getTime()).toBeGreaterThan(2_500);
    expect(row.next_attempt_at.getTime() - dbNow!.getTime()).toBeLessThan(3_500);
    expect(await d.runOnce()).toBe(0);
    await h.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date(Date.now() - 1000) }).where('id', '=', row.id).execute();
    await d.runOnce();
    row = await deliveryTo(event.id, ep.id);
    expect(row.last_status).toBe(429);
    expect(row.next_attempt_at.getTime() - Date.now()).toBeGreaterThan(50_000);
  });

  it('disables the endpoint on 410 and fails what was pending to it', async () => {
    const p = await h.platform();
    const r = await receiver();
    r.reply({ status: 410 });
    r.setDefault({ status: 500 });
    const ep = await endpoint(p.secretKey, r.url());
    const e1 = await emit(p.platformId);
    const e2 = await emit(p.platformId, 'order.failed');
    await deliverer({ perEndpoint: 1 }).runOnce();
    expect(await deliveryTo(e1.id, ep.id)).toMatchObject({ state: 'failed', last_status: 410 });
    const second = await deliveryTo(e2.id, ep.id);
    expect(second.state).toBe('failed');
    expect(second.last_error).toMatch(/disabled/);
    const shown = await h.request('GET', `/v1/webhooks/endpoints/${ep.id}`, { key: p.secretKey });
    expect(shown.body).toMatchObject({ status: 'disabled', disabled_reason: 'endpoint answered 410 Gone' });
    const e3 = await emit(p.platformId);
    expect(await deliveriesOf(e3.id)).toHaveLength(0);
    expect(await deliverer().runOnce()).toBe(0);
    expect(r.received).toHaveLength(1);
  });

  it('times out a slow endpoint without delaying another endpoint', async () => {
    const p = await h.platform();
    const [slow, fast] = await Promise.all([receiver(), receiver()]);
    slow.setDefault({ status: 200, delayMs: 5_000 });
    const slowEp = await endpoint(p.secretKey, slow.url());
    const fastEp = await endpoint(p.secretKey, fast.url());
    const event = await emit(p.platformId);
    const started = Date.now();
    const run = deliverer({ timeoutMs: 2_000 }).runOnce();
    await fast.waitFor(1, 3_000);
    while ((await deliveryTo(event.id, fastEp.id)).state !== 'succeeded') await sleep(10);
    // Recorded well before the slow endpoint's timeout: it did not wait for it.
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(await run).toBe(2);
    const s = await deliveryTo(event.id, slowEp.id);
    expect(s).toMatchObject({ state: 'pending', last_status: null });
    expect(s.last_error).toMatch(/timeout/);
    const [attempt] = await attemptsOf(s.id);
    // Ended by the 2 s timeout, not by the receiver's 5 s answer.
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(1_950);
    expect(attempt!.duration_ms).toBeLessThan(4_500);
  });

  it('keeps delivering to others while a slow endpoint holds its attempts (running loop)', async () => {
    const p = await h.platform();
    const [slow, fast] = await Promise.all([receiver(), receiver()]);
    slow.setDefault({ status: 200, delayMs: 5_000 });
    await endpoint(p.secretKey, slow.url(), ['order.failed']);
    await endpoint(p.secretKey, fast.url(), ['order.confirmed']);
    for (let i = 0; i < 6; i++) await emit(p.platformId, 'order.failed');
    const d = deliverer({ timeoutMs: 10_000, perEndpoint: 2 });
    d.start(25);
    try {
      await slow.waitFor(2, 3_000);
      const sent = Date.now();
      await emit(p.platformId, 'order.confirmed');
      await fast.waitFor(1, 3_000);
      // Well before either slow attempt (5 s) could have freed a slot.
      expect(Date.now() - sent).toBeLessThan(2_500);
      expect(slow.received.length).toBe(2); // per-endpoint cap: the other four wait their turn
    } finally {
      await d.stop();
    }
  });

  it('four endpoints that time out with backlogs get one POST in flight each: another platform\'s endpoint is not starved', async () => {
    const p = await h.platform();
    const other = await h.platform();
    const slow = await Promise.all([receiver(), receiver(), receiver(), receiver()]);
    const fast = await receiver();
    const slowEps: { id: string }[] = [];
    for (const r of slow) {
      r.setDefault({ status: 200, delayMs: 4_000 }); // past the 800 ms timeout: each attempt fails
      slowEps.push(await endpoint(p.secretKey, r.url(), ['order.failed']));
    }
    await endpoint(other.secretKey, fast.url(), ['order.confirmed']);
    for (let i = 0; i < 12; i++) await emit(p.platformId, 'order.failed'); // 12 due to each slow endpoint
    // 8 in flight, 2 per endpoint: the four slow endpoints take every sending slot at first.
    const d = deliverer({ timeoutMs: 800, scheduleMs: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0], concurrency: 8, perEndpoint: 2 });
    d.start(25);
    try {
      await Promise.all(slow.map((r) => r.waitFor(2, 3_000)));
      const sent = Date.now();
      await emit(other.platformId, 'order.confirmed');
      await fast.waitFor(1, 3_000);
      // Once the first attempts time out (800 ms) each slow endpoint is failing: one POST in flight, slots left for
      // others. Without that, the slow endpoints' retries and claimed-ahead rows took every slot for 2.4 s or more.
      expect(Date.now() - sent).toBeLessThan(1_600);
      // Each slow endpoint's later attempts went one at a time (their retries are due at once: without the
      // failing lane they would have gone two at a time and kept every slot).
      const attemptsTo = () => h.db.selectFrom('webhook_attempts').innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
        .select(['webhook_deliveries.endpoint_id', 'webhook_attempts.attempted_at', 'webhook_attempts.duration_ms'])
        .where('webhook_deliveries.endpoint_id', 'in', slowEps.map((e) => e.id)).orderBy('webhook_attempts.attempted_at').execute();
      let attempts = await attemptsTo();
      for (let t = Date.now(); Date.now() - t < 8_000 && !slowEps.every((ep) => attempts.filter((a) => a.endpoint_id === ep.id).length >= 5); await sleep(100)) attempts = await attemptsTo();
      const failing = await h.db.selectFrom('webhook_endpoints').select('failing_since').where('id', 'in', slowEps.map((e) => e.id)).execute();
      expect(failing.map((e) => e.failing_since !== null)).toEqual([true, true, true, true]);
      for (const ep of slowEps) {
        const mine = attempts.filter((a) => a.endpoint_id === ep.id).slice(2); // after the first two (healthy then)
        expect(mine.length).toBeGreaterThan(0);
        for (let i = 1; i < mine.length; i++) {
          const prevEnd = mine[i - 1]!.attempted_at.getTime() + mine[i - 1]!.duration_ms;
          expect(mine[i]!.attempted_at.getTime()).toBeGreaterThanOrEqual(prevEnd - 5);
        }
      }
    } finally {
      await d.stop();
    }
  });

  it('shares slots fairly: an endpoint with a backlog cannot crowd out another', async () => {
    const p = await h.platform();
    const [busy, quiet] = await Promise.all([receiver(), receiver()]);
    await endpoint(p.secretKey, busy.url(), ['order.failed']);
    const quietEp = await endpoint(p.secretKey, quiet.url(), ['order.confirmed']);
    for (let i = 0; i < 30; i++) await emit(p.platformId, 'order.failed');
    const late = await emit(p.platformId, 'order.confirmed');
    expect(await deliverer({ concurrency: 4, perEndpoint: 2 }).runOnce()).toBe(3);
    expect(busy.received).toHaveLength(2);
    expect((await deliveryTo(late.id, quietEp.id)).state).toBe('succeeded');
  });

  it('counts attempts in flight in other instances against the per-endpoint cap', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    for (let i = 0; i < 4; i++) await emit(p.platformId);
    const rows = await h.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', ep.id).orderBy('id').execute();
    await h.db.updateTable('webhook_deliveries').set({ locked_until: new Date(Date.now() + 60_000), lease_token: 'elsewhere' })
      .where('id', 'in', rows.slice(0, 2).map((x) => x.id)).execute();
    expect(await deliverer({ perEndpoint: 2 }).runOnce()).toBe(0);
    expect(await deliverer({ perEndpoint: 3 }).runOnce()).toBe(1);
  });

  it('loses nothing when the process dies between commit and delivery', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    deliverer(); // an instance that never got to run: the outbox row is all that matters
    expect(await deliverer().runOnce()).toBe(1);
    expect(r.received).toHaveLength(1);
    expect((await deliveryTo(event.id, ep.id)).state).toBe('succeeded');
  });

  it('does not lose a poke to the poll interval when a claim in flight ends right after it', async () => {
    const p = await h.platform();
    const r = await receiver();
    await endpoint(p.secretKey, r.url());
    let release!: () => void;
    const gate = new Promise<void>((res) => { release = res; });
    let claims = 0;
    const original = claimRepo.claim;
    const spy = vi.spyOn(claimRepo, 'claim').mockImplementation(async (db, limits) => {
      const ids = await original(db, limits);
      if (claims++ === 0) await gate; // the first claim (nothing due yet) is held open
      return ids;
    });
    const d = deliverer();
    try {
      d.start(60_000); // the poll alone would not come back for a minute
      while (claims === 0) await sleep(5);
      await emit(p.platformId); // committed: what the indexer's afterCommit hook pokes for
      d.poke();
      release(); // the held claim ends before the poke's timer fires
      const until = Date.now() + 5_000;
      while (r.received.length === 0 && Date.now() < until) await sleep(10);
      expect(r.received).toHaveLength(1);
    } finally {
      spy.mockRestore();
      await d.stop();
    }
  });

  it('holds the outcome while the database cannot record it and writes it once it can: no second send', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    // The database goes away right after the receiver got the event: the first three writes fail.
    let failures = 3;
    const d = deliverer({}, 'devnet', failingDatabase(() => {
      if (r.received.length === 0 || failures === 0) return false;
      failures--;
      return true;
    }));
    expect(await d.runOnce()).toBe(1);
    expect(failures).toBe(0);
    expect(r.received).toHaveLength(1);
    const row = await deliveryTo(event.id, ep.id);
    expect(row).toMatchObject({ state: 'succeeded', attempts: 1, last_status: 200, locked_until: null, lease_token: null });
    expect(await attemptsOf(row.id)).toHaveLength(1);
    expect(await d.runOnce()).toBe(0);
    expect(r.received).toHaveLength(1);
  });

  it('gives the outcome up when its lease has lapsed, so the row is retried rather than written twice', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    const d = deliverer({ leaseMs: 600 }, 'devnet', failingDatabase(() => r.received.length > 0));
    const started = Date.now();
    expect(await d.runOnce()).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    const row = await deliveryTo(event.id, ep.id);
    expect(row).toMatchObject({ state: 'pending', attempts: 0 });
    expect(await attemptsOf(row.id)).toHaveLength(0);
  });

  it("picks up a crashed instance's delivery once its lease lapses, never before", async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    const row = await deliveryTo(event.id, ep.id);
    await h.db.updateTable('webhook_deliveries').set({ locked_until: new Date(Date.now() + 60_000), lease_token: 'crashed' }).where('id', '=', row.id).execute();
    const d = deliverer();
    expect(await d.runOnce()).toBe(0);
    await h.db.updateTable('webhook_deliveries').set({ locked_until: new Date(Date.now() - 1_000) }).where('id', '=', row.id).execute();
    expect(await d.runOnce()).toBe(1);
    expect(r.received).toHaveLength(1);
    expect((await deliveryTo(event.id, ep.id)).state).toBe('succeeded');
  });

  it('never delivers one row from two instances at once', async () => {
    const p = await h.platform();
    const r = await receiver();
    r.setDefault({ status: 200, delayMs: 20 });
    await endpoint(p.secretKey, r.url());
    const ids = new Set<string>();
    for (let i = 0; i < 24; i++) ids.add((await emit(p.platformId)).id);
    const instances = [deliverer({ perEndpoint: 4 }), deliverer({ perEndpoint: 4 }), deliverer({ perEndpoint: 4 })];
    for (let round = 0; round < 40 && r.received.length < 24; round++) await Promise.all(instances.map((d) => d.runOnce()));
    expect(r.received).toHaveLength(24);
    expect(new Set(r.received.map((x) => x.headers['x-webhook-id']))).toEqual(ids);
  });

  it('signs with both secrets for 24 hours after a roll, new first', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const rolled = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/roll-secret`, { key: p.secretKey });
    await emit(p.platformId);
    await deliverer().runOnce();
    const got = r.received[0]!;
    const ts = got.headers['x-webhook-timestamp'] as string;
    expect(v1s(got.headers['x-webhook-signature'] as string)).toEqual([hmac(rolled.body.secret, ts, got.rawBody), hmac(ep.secret, ts, got.rawBody)]);

    await h.db.updateTable('webhook_endpoints').set({ previous_secret_expires_at: new Date(Date.now() - 1) }).where('id', '=', ep.id).execute();
    await emit(p.platformId);
    await deliverer().runOnce();
    const later = r.received[1]!;
    const ts2 = later.headers['x-webhook-timestamp'] as string;
    expect(later.headers['x-webhook-signature']).toBe(`v1=${hmac(rolled.body.secret, ts2, later.rawBody)}`);
  });

  it('one running deliverer signs with the new secret right after a roll (it keeps opened secrets by their sealed value)', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const d = deliverer();
    await emit(p.platformId);
    await d.runOnce();
    const first = r.received[0]!;
    expect(first.headers['x-webhook-signature']).toBe(`v1=${hmac(ep.secret, first.headers['x-webhook-timestamp'] as string, first.rawBody)}`);
    const rolled = await h.request('POST', `/v1/webhooks/endpoints/${ep.id}/roll-secret`, { key: p.secretKey });
    await h.db.updateTable('webhook_endpoints').set({ previous_secret_expires_at: new Date(Date.now() - 1) }).where('id', '=', ep.id).execute();
    await emit(p.platformId);
    await d.runOnce();
    const later = r.received[1]!;
    expect(later.headers['x-webhook-signature']).toBe(`v1=${hmac(rolled.body.secret, later.headers['x-webhook-timestamp'] as string, later.rawBody)}`);
  });

  it('stops sending to a deleted endpoint: its pending deliveries are failed', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    await h.request('DELETE', `/v1/webhooks/endpoints/${ep.id}`, { key: p.secretKey });
    expect(await deliverer().runOnce()).toBe(0);
    expect(await deliveryTo(event.id, ep.id)).toMatchObject({ state: 'failed', last_error: 'endpoint deleted' });
    expect(r.received).toHaveLength(0);
  });

  it('re-checks the address at delivery (production policy)', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url()); // accepted on devnet
    const event = await emit(p.platformId);
    await deliverer({}, 'production').runOnce();
    const row = await deliveryTo(event.id, ep.id);
    expect(row.state).toBe('pending');
    expect(row.last_error).toMatch(/^blocked: /);
    expect(r.received).toHaveLength(0);
  });

  it('connects only to the address it checked (DNS rebinding)', async () => {
    const p = await h.platform();
    const ep = await endpoint(p.secretKey, 'http://127.0.0.1:9/hook');
    await h.db.updateTable('webhook_endpoints').set({ url: 'https://rebind.example.test/hook' }).where('id', '=', ep.id).execute();
    const event = await emit(p.platformId);
    const lookups: string[] = [];
    const resolve = async (host: string) => {
      lookups.push(host);
      return [{ address: '10.0.0.7', family: 4 }];
    };
    await deliverer({ resolve }, 'production').runOnce();
    const row = await deliveryTo(event.id, ep.id);
    expect(lookups).toEqual(['rebind.example.test']);
    expect(row.last_error).toBe('blocked: url host must resolve only to public addresses');
  });
});

describe('connections (one keep-alive pool per endpoint)', () => {
  it('reuses a connection for one endpoint and never shares one between endpoints', async () => {
    const p = await h.platform();
    const r = await receiver();
    const a = await endpoint(p.secretKey, r.url('/a'));
    const b = await endpoint(p.secretKey, r.url('/b')); // same origin as a
    for (let i = 0; i < 4; i++) await emit(p.platformId);
    const d = deliverer({ perEndpoint: 1 });
    try {
      await drainUntil(d, async () => r.received.length >= 8);
    } finally {
      await d.stop();
    }
    const ports = (path: string) => new Set(r.received.filter((x) => x.path === path).map((x) => x.remotePort));
    expect(r.received.filter((x) => x.path === '/a')).toHaveLength(4);
    expect(ports('/a').size).toBe(1);
    expect(ports('/b').size).toBe(1);
    expect([...ports('/a')][0]).not.toBe([...ports('/b')][0]);
    expect((await h.db.selectFrom('webhook_deliveries').select('state').where('endpoint_id', 'in', [a.id, b.id]).execute()).every((x) => x.state === 'succeeded')).toBe(true);
  });

  it('connects to the address its resolver checked (a name no DNS server knows)', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    await h.db.updateTable('webhook_endpoints').set({ url: `http://hooks.trisettle.test:${r.port}/hook` }).where('id', '=', ep.id).execute();
    const event = await emit(p.platformId);
    const lookups: string[] = [];
    const resolve = async (host: string) => {
      lookups.push(host);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const d = deliverer({ resolve });
    await d.runOnce();
    await d.stop();
    expect(lookups).toEqual(['hooks.trisettle.test']);
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.headers.host).toBe(`hooks.trisettle.test:${r.port}`);
    expect((await deliveryTo(event.id, ep.id)).state).toBe('succeeded');
  });

  it('bounds the attempt while it is still connecting (a lookup that never answers)', async () => {
    const p = await h.platform();
    const ep = await endpoint(p.secretKey, 'http://127.0.0.1:9/hook');
    await h.db.updateTable('webhook_endpoints').set({ url: 'http://stuck.trisettle.test/hook' }).where('id', '=', ep.id).execute();
    const event = await emit(p.platformId);
    const d = deliverer({ timeoutMs: 300, resolve: () => new Promise(() => {}) });
    const started = Date.now();
    await d.runOnce();
    const took = Date.now() - started;
    await d.stop();
    const row = await deliveryTo(event.id, ep.id);
    expect(row).toMatchObject({ state: 'pending', attempts: 1, last_error: 'timeout: no response within 300 ms' });
    expect(took).toBeLessThan(5_000);
  });

  it('keeps the first 4 KB of a 2xx answer far larger than it drains, and the next attempt still goes out', async () => {
    const p = await h.platform();
    const r = await receiver();
    r.reply({ status: 200, body: 'y'.repeat(300_000) });
    const ep = await endpoint(p.secretKey, r.url());
    const first = await emit(p.platformId);
    const second = await emit(p.platformId, 'order.failed');
    const d = deliverer({ perEndpoint: 1 });
    try {
      await drainUntil(d, async () => (await deliveryTo(second.id, ep.id)).state === 'succeeded' && (await deliveryTo(first.id, ep.id)).state === 'succeeded');
    } finally {
      await d.stop();
    }
    const [attempt] = await attemptsOf((await deliveryTo(first.id, ep.id)).id);
    expect(attempt).toMatchObject({ status: 200, response_body: 'y'.repeat(4096) });
    expect(r.received).toHaveLength(2);
  });
});

describe('deliveries API', () => {
  it('lists deliveries of an endpoint with attempts, last status and event', async () => {
    const p = await h.platform();
    const r = await receiver();
    r.reply({ status: 500 });
    const ep = await endpoint(p.secretKey, r.url());
    const e1 = await emit(p.platformId, 'order.confirmed');
    await deliverer().runOnce();
    const res = await h.request('GET', `/v1/webhooks/endpoints/${ep.id}/deliveries`, { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0]).toMatchObject({
      object: 'webhook_delivery', endpoint_id: ep.id, event_id: e1.id, event_type: 'order.confirmed',
      state: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500', delivered_at: null,
    });
    expect(res.body.data[0].id).toMatch(/^dlv_/);
    expect(Date.parse(res.body.data[0].last_attempt_at)).not.toBeNaN();
    expect(Date.parse(res.body.data[0].next_attempt_at)).not.toBeNaN();
  });

  it('redelivers a succeeded delivery now, with a fresh retry schedule', async () => {
    const p = await h.platform();
    const r = await receiver();
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    const d = deliverer();
    await d.runOnce();
    const row = await deliveryTo(event.id, ep.id);
    const res = await h.request('POST', `/v1/webhooks/deliveries/${row.id}/redeliver`, { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: row.id, state: 'pending', attempts: 1 });
    expect(await d.runOnce()).toBe(1);
    expect(r.received).toHaveLength(2);
    expect(await deliveryTo(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 2, retry_from: 1 });
  });

  it('redelivers a delivery that gave up', async () => {
    const p = await h.platform();
    const r = await receiver();
    r.reply({ status: 500 }, { status: 500 });
    const ep = await endpoint(p.secretKey, r.url());
    const event = await emit(p.platformId);
    const d = deliverer({ scheduleMs: [10] });
    await drainUntil(d, async () => (await deliveryTo(event.id, ep.id)).state === 'failed');
    const row = await deliveryTo(event.id, ep.id);
    expect((await h.request('POST', `/v1/webhooks/deliveries/${row.id}/redeliver`, { cookie: p.cookie })).status).toBe(200);
    await d.runOnce();
    expect(await deliveryTo(event.id, ep.id)).toMatchObject({ state: 'succeeded', attempts: 3 });
  });

  it('refuses to redeliver while an attempt is in flight (409)', async () => {
    const p = await h.platform();
    const ep = await endpoint(p.secretKey, 'http://127.0.0.1:9/hook');
    const event = await emit(p.platformId);
    const row = await deliveryTo(event.id, ep.id);
    await h.db.updateTable('webhook_deliveries').set({ locked_until: new Date(Date.now() + 60_000), lease_token: 'busy' }).where('id', '=', row.id).execute();
    const res = await h.request('POST', `/v1/webhooks/deliveries/${row.id}/redeliver`, { key: p.secretKey });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state');
  });

  it("answers 404 for another platform's delivery and writes nothing", async () => {
    const p = await h.platform();
    const q = await h.platform();
    const ep = await endpoint(p.secretKey, 'http://127.0.0.1:9/hook');
    const event = await emit(p.platformId);
    const row = await deliveryTo(event.id, ep.id);
    const res = await h.request('POST', `/v1/webhooks/deliveries/${row.id}/redeliver`, { key: q.secretKey });
    expect(res.status).toBe(404);
    expect((await h.request('GET', `/v1/webhooks/endpoints/${ep.id}/deliveries`, { key: q.secretKey })).status).toBe(404);
    expect(await deliveryTo(event.id, ep.id)).toEqual(row);
    expect((await h.request('POST', '/v1/webhooks/deliveries/dlv_doesnotexist000000/redeliver', { key: p.secretKey })).status).toBe(404);
  });
});
