import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../src/modules/events/service.js';
import { createWebhookDeliverer } from '../../src/modules/webhooks/deliver.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

/**
 * The documented retry schedule, as the deliverer applies it (no injected schedule): after each failed attempt
 * the delivery is due again 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later (±10 % jitter), measured against the
 * database's clock; the eighth failure gives up. Time is moved by making the due delivery due now.
 */
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const DOCUMENTED = [5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];

let h: Harness;
let r: Receiver;
beforeAll(async () => {
  h = await createHarness();
  r = await startReceiver({ status: 500 });
});
afterAll(async () => {
  await r?.close();
  await h?.close();
});

describe('webhook retry schedule, end to end', () => {
  it('retries a failing endpoint on the documented schedule, then fails the delivery after eight attempts', async () => {
    const p = await h.platform();
    const ep = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: r.url(), subscribed_events: ['*'] } });
    expect(ep.status).toBe(201);
    const event = await emitEvent(h.db, { platformId: p.platformId, type: 'order.confirmed', data: { object: { id: 'ord_sched', object: 'order' } } });
    const d = createWebhookDeliverer({ db: h.db, config: { env: 'devnet' }, logger: h.services.logger, secrets: h.services.webhookSecrets }, { timeoutMs: 1_000 });
    const row = () => h.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', event.id).executeTakeFirstOrThrow();
    const dbNow = async () => (await h.db.selectNoFrom((eb) => eb.fn<Date>('now').as('now')).executeTakeFirstOrThrow()).now;

    for (let attempt = 1; attempt <= 8; attempt++) {
      const before = await dbNow();
      await d.runOnce();
      const after = await dbNow();
      const got = await row();
      expect(got.attempts).toBe(attempt);
      expect(r.received).toHaveLength(attempt);
      if (attempt === 8) {
        expect(got.state).toBe('failed');
        break;
      }
      expect(got.state).toBe('pending');
      const wanted = DOCUMENTED[attempt - 1]!;
      expect(got.next_attempt_at.getTime() - after.getTime(), `after attempt ${attempt}`).toBeGreaterThanOrEqual(wanted * 0.9 - 1_000);
      expect(got.next_attempt_at.getTime() - before.getTime(), `after attempt ${attempt}`).toBeLessThanOrEqual(wanted * 1.1 + 1_000);
      // Not due yet: another pass sends nothing.
      expect(await d.runOnce()).toBe(0);
      expect(r.received).toHaveLength(attempt);
      // Move time: the delivery is due now.
      await h.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date(Date.now() - 1_000) }).where('id', '=', got.id).execute();
    }
    // Given up: nothing more is sent however long we wait.
    await h.db.updateTable('webhook_deliveries').set({ next_attempt_at: new Date(Date.now() - 1_000) }).where('event_id', '=', event.id).execute();
    expect(await d.runOnce()).toBe(0);
    expect(r.received).toHaveLength(8);
  }, 60_000);
});
