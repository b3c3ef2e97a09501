import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAlert } from '../../src/modules/alerts/service.js';
import { emitEvent } from '../../src/modules/events/service.js';
import { enqueueOperatorTx } from '../../src/modules/operator-txs/enqueue.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const scrape = async () => {
  const res = await h.request('GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text as string;
};
/** The value of one series, or undefined when the scrape has no such series. */
const value = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('GET /metrics: the gauges docs/operations.md alerts on, read from the database at each scrape', () => {
  it('indexer lag, heartbeat age, errors and the enabled switch follow indexer_chains and the cursor', async () => {
    await sql`insert into indexer_chains (chain_id, target, heartbeat_at, consecutive_errors, enabled) values (777, 1500, now() - interval '90 seconds', 4, false)`.execute(h.db);
    await sql`insert into chain_cursors (chain_id, last_block) values (777, 1200)`.execute(h.db);
    const t = await scrape();
    expect(value(t, 'trisettle_indexer_lag_blocks{chain_id="777"}')).toBe(300);
    expect(value(t, 'trisettle_indexer_heartbeat_age_seconds{chain_id="777"}')).toBeGreaterThanOrEqual(90);
    expect(value(t, 'trisettle_indexer_consecutive_errors{chain_id="777"}')).toBe(4);
    expect(value(t, 'trisettle_indexer_enabled{chain_id="777"}')).toBe(0);

    await sql`update chain_cursors set last_block = 1490 where chain_id = 777`.execute(h.db);
    expect(value(await scrape(), 'trisettle_indexer_lag_blocks{chain_id="777"}')).toBe(10);
  });

  it('open operator transactions by state, and the oldest one\'s age; a final one leaves the series', async () => {
    const row = await enqueueOperatorTx(h.db, { chainId: 778, purpose: 'settlement', refId: 'stl_ops_1', to: '0x5FbDB2315678afecb367f032d93F642f64180aa3', calldata: '0x' });
    await sql`update operator_txs set created_at = now() - interval '10 minutes' where id = ${row.id}`.execute(h.db);
    let t = await scrape();
    expect(value(t, 'trisettle_operator_txs_open{chain_id="778",key_role="operator",state="queued"}')).toBe(1);
    expect(value(t, 'trisettle_operator_tx_oldest_open_age_seconds{chain_id="778",key_role="operator"}')).toBeGreaterThanOrEqual(600);

    await sql`update operator_txs set state = 'done' where id = ${row.id}`.execute(h.db);
    t = await scrape();
    expect(value(t, 'trisettle_operator_txs_open{chain_id="778",key_role="operator",state="queued"}')).toBeUndefined();
    expect(value(t, 'trisettle_operator_tx_oldest_open_age_seconds{chain_id="778",key_role="operator"}')).toBeUndefined();
  });

  it('the webhook backlog: pending deliveries and how long the most overdue has waited', async () => {
    const p = await h.platform();
    const before = value(await scrape(), 'trisettle_webhook_deliveries_pending')!;
    // Straight into the table: the endpoint's URL is never dialled here (no deliverer runs in this harness).
    await sql`insert into webhook_endpoints (id, platform_id, url, subscribed_events, secret) values ('we_ops_1', ${p.platformId}, 'https://ops.example.test/hook', '["*"]', 'sealed')`.execute(h.db);
    for (let i = 0; i < 3; i++) await emitEvent(h.db, { platformId: p.platformId, type: 'order.confirmed', data: { object: { id: `ord_ops_${i}`, object: 'order' } } });
    await sql`update webhook_deliveries set next_attempt_at = now() - interval '5 minutes' where endpoint_id = 'we_ops_1'`.execute(h.db);
    const t = await scrape();
    expect(value(t, 'trisettle_webhook_deliveries_pending')).toBe(before + 3);
    expect(value(t, 'trisettle_webhook_delivery_oldest_due_age_seconds')).toBeGreaterThanOrEqual(300);
  });

  it('chain alerts by kind count every alert written', async () => {
    await recordAlert(h.db, 779, 'paid_mismatch', { order_id: 'ord_x' });
    await recordAlert(h.db, 779, 'paid_mismatch', { order_id: 'ord_y' });
    await recordAlert(h.db, 779, 'x402_return_failed', { x402_payment_id: 'x402_z' });
    const t = await scrape();
    expect(value(t, 'trisettle_chain_alerts{chain_id="779",kind="paid_mismatch"}')).toBe(2);
    expect(value(t, 'trisettle_chain_alerts{chain_id="779",kind="x402_return_failed"}')).toBe(1);
  });
});
