/**
 * EXPLAIN (ANALYZE, BUFFERS) of every list/filter query, on a PostgreSQL database filled to a realistic
 * size (5 platforms, 100k orders, events, deliveries and attempts, 20k sessions, 10k API keys, 2k merchants;
 * ANALYZEd).
 * The SQL is the product's own: each repository function runs against a compile-only Kysely (DummyDriver)
 * that records the statement and its parameters; they are then explained here. Statements that lock or
 * write (the delivery claim, the expiry sweep) are explained inside a transaction that is rolled back.
 */
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { DB } from '../../src/db/schema.js';
import { createLogger } from '../../src/lib/logger.js';
import { sha256Hex } from '../../src/lib/ids.js';
import { sessionsRepo } from '../../src/modules/checkout/repo.js';
import { eventsRepo } from '../../src/modules/events/repo.js';
import { keysRepo } from '../../src/modules/keys/repo.js';
import { merchantsRepo } from '../../src/modules/merchants/repo.js';
import { ordersRepo } from '../../src/modules/orders/repo.js';
import { claimRepo, deliveriesRepo } from '../../src/modules/webhooks/repo.js';
import { createHarness } from '../../test/helpers/harness.js';
import { explainStatement, statementCapture, type Explained as Plan } from '../lib/capture.js';
import { freshLocation, openLocation } from '../lib/db.js';
import { log } from '../lib/util.js';

const FILL = (p: string[]) => `
insert into merchants (id, platform_id, external_id, name, merchant_wallet, chain_id, reserve_bps, created_at)
select 'mch_f' || g, (array['${p.join("','")}'])[1 + g % 5], 'ext_' || g, 'Merchant ' || g, '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', 84532, 1000,
       now() - (g || ' minutes')::interval
from generate_series(1, 2000) g;

insert into orders (id, platform_id, merchant_id, merchant_external_id, order_no, chain_id, token, token_address, amount,
  service_fee_bps, platform_fee_bps, reserve_bps, service_fee, platform_fee, merchant_gross, reserve_hold, merchant_available,
  metadata, state, pay_to, onchain_id, merchant_wallet, platform_wallet, eip712, signature, deadline_at, created_at, confirmed_at)
select 'ord_f' || lpad(g::text, 8, '0'), (array['${p.join("','")}'])[1 + g % 5], 'mch_f' || (1 + g % 2000), 'ext_' || (1 + g % 2000), 'no_' || g, 84532,
  'USDC', '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', 10000000, 100, 500, 1000, 100000, 500000, 9400000, 940000, 8460000,
  '{}', s.state, '0x5FbDB2315678afecb367f032d93F642f64180aa3', '0x' || md5(g::text) || md5('x' || g), '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906', '{}', '0x', c.created + interval '1 hour', c.created,
  case when s.state = 'confirmed' then c.created + interval '5 minutes' end
from generate_series(1, 100000) g
cross join lateral (select now() - ((100000 - g) * interval '1 minute') as created) c
cross join lateral (select case when (g / 5) % 10 < 7 then 'confirmed' when (g / 5) % 10 < 9 then 'expired' else 'pending_payment' end as state) s;

insert into checkout_sessions (id, platform_id, order_id, token_hash, state, expires_at, created_at)
select 'cs_f' || g, o.platform_id, o.id, encode(sha256(('cs_live_fill' || g)::bytea), 'hex'), 'open', o.deadline_at, o.created_at
from generate_series(1, 20000) g join orders o on o.id = 'ord_f' || lpad((g * 5)::text, 8, '0');

insert into webhook_endpoints (id, platform_id, url, subscribed_events, secret, created_at)
select 'we_f' || g, (array['${p.join("','")}'])[1 + g % 5], 'http://127.0.0.1:9/h', '["*"]', 'whsec_x', now() from generate_series(1, 50) g;

insert into events (id, platform_id, type, data, created_at)
select 'evt_f' || lpad(g::text, 8, '0'), (array['${p.join("','")}'])[1 + g % 5],
  (array['order.confirmed','order.expired','checkout.session.completed','refund.completed'])[1 + g % 4], '{"object":{}}',
  now() - ((100000 - g) * interval '1 minute')
from generate_series(1, 100000) g;

insert into webhook_deliveries (id, event_id, event_created_at, endpoint_id, platform_id, state, attempts, next_attempt_at, created_at, delivered_at)
select 'dlv_f' || g, e.id, e.created_at, 'we_f' || (1 + (g / 7) % 50), (array['${p.join("','")}'])[1 + (1 + (g / 7) % 50) % 5],
  case when g % 50 = 0 then 'pending' else 'succeeded' end, 1,
  case when g % 50 = 0 then now() + ((g % 7 - 3) * interval '1 minute') else now() - interval '1 day' end,
  now() - ((100000 - g) * interval '1 minute'), case when g % 50 <> 0 then now() end
from generate_series(1, 100000) g join events e on e.id = 'evt_f' || lpad(g::text, 8, '0');

insert into webhook_attempts (delivery_id, attempted_at, status, duration_ms)
select 'dlv_f' || g, now() - ((100000 - g) * interval '1 minute'), 200, 5 from generate_series(1, 100000) g;

insert into api_keys (id, platform_id, kind, key_hash, key_hint, created_at)
select 'key_f' || g, (array['${p.join("','")}'])[1 + g % 5], 'secret', encode(sha256(('sk_live_fill' || g)::bytea), 'hex'), 'sk_live_…' || g, now()
from generate_series(1, 10000) g;
analyze;
`;

type Explained = { name: string; sql: string } & Plan;

export async function benchExplain(): Promise<{ rows: Record<string, number>; queries: Explained[] }> {
  log('explain: filling a PostgreSQL database');
  const loc = await freshLocation('postgres');
  const h = await createHarness({ database: openLocation(loc), logger: createLogger('silent', 'devnet') });
  const client = new pg.Client({ connectionString: loc.url });
  try {
    const platforms = [];
    for (let i = 0; i < 5; i++) platforms.push(await h.platform());
    const ids = platforms.map((p) => p.platformId);
    await client.connect();
    await client.query(FILL(ids));
    // What the order-counts worker does every 5 s (migration 039): the fill's deltas folded, and autovacuum's pass over
    // the folded rows (the table vacuums after 10,000 dead rows), as in a running service.
    while (await h.services.orders.foldCounts() > 0);
    await client.query('vacuum analyze order_counts, order_count_deltas, order_gross_days, order_gross_minutes');
    const P = ids[0]!;
    const mid = (await client.query(`select created_at, id from orders where platform_id = $1 order by created_at desc, id desc offset 10000 limit 1`, [P])).rows[0];
    const emid = (await client.query(`select created_at, id from events where platform_id = $1 order by created_at desc, id desc offset 10000 limit 1`, [P])).rows[0];
    const mmid = (await client.query(`select created_at, id from merchants where platform_id = $1 order by created_at desc, id desc offset 200 limit 1`, [P])).rows[0];
    const endpoint = (await client.query(`select id from webhook_endpoints where platform_id = $1 limit 1`, [P])).rows[0].id;
    const cursor = { createdAt: mid.created_at, id: mid.id };
    // A merchant of P and its platform's signing columns, for the order-creation statements.
    const sm = (await client.query(`select m.id, m.external_id, m.merchant_wallet, m.reserve_bps, m.chain_id, p.platform_fee_bps, p.platform_wallet
      from merchants m join platforms p on p.id = m.platform_id where m.platform_id = $1 and m.state = 'active' limit 1`, [P])).rows[0];
    const key = (await client.query(`select id from api_keys where platform_id = $1 and revoked_at is null limit 1`, [P])).rows[0].id;
    const newOrder = {
      id: 'ord_explain', platform_id: P, merchant_id: sm.id, merchant_external_id: sm.external_id, order_no: 'explain-1', chain_id: sm.chain_id,
      token: 'USDC', token_address: '0x' + '1'.repeat(40), amount: 25_000_000n, service_fee_bps: 100, platform_fee_bps: sm.platform_fee_bps,
      reserve_bps: sm.reserve_bps, service_fee: 250_000n, platform_fee: 1_250_000n, merchant_gross: 23_500_000n, reserve_hold: 2_350_000n,
      merchant_available: 21_150_000n, metadata: '{}', state: 'pending_payment' as const, pay_to: '0x' + '2'.repeat(40), onchain_id: '0x' + 'e'.repeat(64),
      payer_address: null, merchant_wallet: sm.merchant_wallet, platform_wallet: sm.platform_wallet, eip712: '{}', signature: '0x' + '3'.repeat(130),
      deadline_at: new Date(Date.now() + 3_600_000), checkout_session_id: null, capture_method: 'automatic' as const, capture_before: null, subscription_id: null, subscription_period: null,
    };

    const dry = statementCapture();
    const specs: [string, (d: Kysely<DB>) => Promise<unknown>, boolean?][] = [
      ['orders list (platform)', (d) => ordersRepo.list(d, P, {}, 20, null)],
      ['orders list (platform, state)', (d) => ordersRepo.list(d, P, { state: 'pending_payment' }, 20, null)],
      ['orders list (platform, cursor 10k deep)', (d) => ordersRepo.list(d, P, {}, 20, cursor)],
      ['orders list (platform, state, cursor)', (d) => ordersRepo.list(d, P, { state: 'confirmed' }, 20, cursor)],
      ['orders list (platform, merchant)', (d) => ordersRepo.list(d, P, { merchantExternalId: 'ext_6' }, 20, null)],
      ['merchants list', (d) => merchantsRepo.list(d, P, 20, null)],
      ['merchants list (cursor)', (d) => merchantsRepo.list(d, P, 20, { createdAt: mmid.created_at, id: mmid.id })],
      ['events list', (d) => eventsRepo.list(d, P, { limit: 20, cursor: null })],
      ['events list (type, cursor 10k deep)', (d) => eventsRepo.list(d, P, { limit: 20, cursor: { createdAt: emid.created_at, id: emid.id }, type: 'order.confirmed' })],
      ['deliveries of an endpoint', (d) => deliveriesRepo.listForEndpoint(d, P, endpoint, { limit: 20, cursor: null })],
      ['deliveries due (claim)', (d) => claimRepo.claim(d, { slots: 16, perEndpoint: 3, failingPerEndpoint: 1, maxEndpoints: 64, leaseMs: 45_000, token: 'explain' }), true],
      ['pending-deadline sweep', (d) => ordersRepo.lockDue(d, 84532, new Date(), 200), true],
      ['public session read (token hash)', (d) => sessionsRepo.findPublic(d, sha256Hex('cs_live_fill77'))],
      ['order by onchain id (indexer)', (d) => ordersRepo.findByOnchainId(d, '0x' + 'a'.repeat(64))],
      ['api key by hash (auth)', (d) => keysRepo.findByHash(d, sha256Hex('sk_live_x'))],
      ['signing context with key check (first order for a merchant)', (d) => ordersRepo.signingContext(d, P, sm.external_id, key)],
      ['order insert if rows and key unchanged (every later order)', (d) => ordersRepo.insertIfCurrent(d, newOrder, key), true],
      ['orders summary counts', (d) => ordersRepo.counts(d, P)],
      ['orders summary gross 24 h', (d) => ordersRepo.grossSince(d, P, new Date(Date.now() - 86_400_000))],
      ['orders summary gross per day, 14 days', (d) => ordersRepo.grossDaily(d, P, new Date(Math.floor(Date.now() / 86_400_000 - 13) * 86_400_000))],
    ];
    const queries: Explained[] = [];
    for (const [name, fn, writes] of specs) {
      const q = await dry.capture(fn);
      const e = await explainStatement(client, q, writes);
      queries.push({ name, sql: q.sql, ...e });
      log(`  ${name}: ${e.indexes.join(', ') || 'no index'}${e.seq_scans.length ? ` (seq scan: ${e.seq_scans.join(', ')})` : ''} ${e.execution_ms} ms`);
    }
    const counts = (await client.query(`select (select count(*) from orders)::int as orders, (select count(*) from events)::int as events,
      (select count(*) from webhook_deliveries)::int as deliveries, (select count(*) from checkout_sessions)::int as sessions, (select count(*) from merchants)::int as merchants`)).rows[0];
    await dry.destroy();
    return { rows: counts, queries };
  } finally {
    await client.end().catch(() => {});
    await h.close();
    await loc.dispose();
  }
}
