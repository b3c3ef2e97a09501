/**
 * Webhook deliveries/s to a local receiver (its own process, answers 200 at once) with 1, 10 and 100
 * endpoints. The outbox is filled first (events with one pending delivery per endpoint, as the indexer
 * writes them), then the product's deliverer runs with its production settings (16 in flight, 3 per
 * endpoint, polled every second and whenever an attempt finishes) until every delivery has succeeded.
 * A platform may have 16 endpoints, so 100 endpoints are spread over 7 platforms.
 */
import { createLogger } from '../../src/lib/logger.js';
import { emitEvent } from '../../src/modules/events/service.js';
import { createWebhookDeliverer } from '../../src/modules/webhooks/deliver.js';
import { createHarness, type Harness } from '../../test/helpers/harness.js';
import { freshLocation, openLocation, type DbKind } from '../lib/db.js';
import { startReceiver, type Receiver } from '../lib/receiver.js';
import { loadAvg, log, round, sleep } from '../lib/util.js';

const PER_PLATFORM = 16;

/** An order.confirmed payload of the usual size (~1.5 kB), so bodies and signatures cost what they do in production. */
const payload = (i: number) => ({
  id: `ord_bench${String(i).padStart(12, '0')}`, object: 'order', merchant_id: 'm_bench', order_no: `wh_${i}`, chain_id: 84532, token: 'USDC',
  token_address: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', amount: '25', metadata: { cart: 'c_123', i }, state: 'confirmed',
  pay_to: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  computed_split: { service_fee: '250000', platform_fee: '1250000', merchant_gross: '23500000', reserve_hold: '2350000', merchant_available: '21150000' },
  signature: `0x${'ab'.repeat(65)}`, deadline_at: new Date().toISOString(), payer_address: null, paid_by: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  tx_hash: `0x${'cd'.repeat(32)}`, refunded_amount: '0', checkout_session_id: null, failure_reason: null, created_at: new Date().toISOString(), confirmed_at: new Date().toISOString(),
});

async function scenario(kind: DbKind, receiver: Receiver, endpoints: number, deliveries: number) {
  const loc = await freshLocation(kind);
  const h: Harness = await createHarness({ database: openLocation(loc), logger: createLogger('silent', 'devnet') });
  try {
    const platforms: { id: string; endpoints: number }[] = [];
    for (let left = endpoints; left > 0; left -= PER_PLATFORM) {
      const p = await h.platform();
      const k = Math.min(PER_PLATFORM, left);
      for (let e = 0; e < k; e++) {
        const r = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: `${receiver.url}?e=${platforms.length}_${e}`, subscribed_events: ['*'] } });
        if (r.status !== 201) throw new Error(r.text);
      }
      platforms.push({ id: p.platformId, endpoints: k });
    }
    const events = Math.ceil(deliveries / endpoints);
    let n = 0;
    for (let i = 0; i < events; i += 100) {
      await h.db.transaction().execute(async (tx) => {
        for (let j = i; j < Math.min(events, i + 100); j++) {
          for (const p of platforms) await emitEvent(tx, { platformId: p.id, type: 'order.confirmed', data: { object: payload(n++) } });
        }
      });
    }
    const total = events * endpoints;
    await receiver.call('reset');
    const deliverer = createWebhookDeliverer({ db: h.db, config: h.config, logger: createLogger('silent', 'devnet'), secrets: h.services.webhookSecrets });
    const started = performance.now();
    deliverer.start(1_000);
    let done = 0;
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      await sleep(100);
      if ((await receiver.call<number>('count')) < total) continue;
      done = Number((await h.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('state', '=', 'succeeded').executeTakeFirstOrThrow()).n);
      if (done >= total) break;
    }
    const seconds = (performance.now() - started) / 1000;
    await deliverer.stop();
    return { db: kind, endpoints, deliveries: done, seconds: round(seconds, 2)!, per_s: round(done / seconds, 0)!, load_avg: loadAvg() };
  } finally {
    await h.close();
    await loc.dispose();
  }
}

export async function benchWebhooks(o: { dbs: DbKind[]; deliveries?: number }) {
  const receiver = await startReceiver(false);
  const rows = [];
  try {
    for (const kind of o.dbs) {
      for (const endpoints of [1, 10, 100]) {
        log(`webhooks/${kind}: ${endpoints} endpoint(s)`);
        rows.push(await scenario(kind, receiver, endpoints, o.deliveries ?? 1000));
        log(`  ${rows.at(-1)!.deliveries} deliveries in ${rows.at(-1)!.seconds} s (${rows.at(-1)!.per_s}/s)`);
      }
    }
  } finally {
    await receiver.stop();
  }
  return { settings: { concurrency: 16, per_endpoint: 3, poll_ms: 1000 }, rows };
}
