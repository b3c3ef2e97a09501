import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { weekOf } from '../../src/modules/retention/repo.js';
import { fakeChain, merchant, order } from '../helpers/factories.js';
import { createHarness, freshDatabase, TEST_DB, type Harness } from '../helpers/harness.js';

/**
 * Storage bounded by policy (issue 37, migration 034): events, webhook deliveries and attempts and request logs
 * partitioned by week; the conversion of a database written by the schema before it; the retention pass.
 */
const DAY = 86_400_000;

describe(`migration 034 converts a database of the schema before it (${TEST_DB})`, () => {
  it('keeps every row of events, deliveries, attempts and request logs, each in its week (or DEFAULT), ids continuing', async () => {
    const database = await freshDatabase();
    try {
      const db = database.db;
      await migrate(db, { upTo: '033' });
      expect((await sql<{ n: string }>`select count(*)::text as n from schema_migrations where name like '034%'`.execute(db)).rows[0]!.n).toBe('0');
      // Rows as the code of schema 033 writes them: 600 events over ~20 weeks, one 2 years old (before the weeks
      // the migration creates: DEFAULT), 2 deliveries each, attempts for half of those, 500 request logs.
      await sql`insert into "user" (id, name, email) values ('usr_c', 'c', 'c@example.com')`.execute(db);
      await sql`insert into platforms (id, user_id, name, platform_wallet, chain_id, platform_fee_bps, default_reserve_bps)
        values ('plt_c', 'usr_c', 'c', '0x90F79bf6EB2c4f870365E785982E1f101E93b906', 84532, 0, 0)`.execute(db);
      await sql`insert into webhook_endpoints (id, platform_id, url, subscribed_events, secret)
        values ('we_c1', 'plt_c', 'https://a.example/h', '["*"]', 's'), ('we_c2', 'plt_c', 'https://b.example/h', '["*"]', 's')`.execute(db);
      await sql`insert into events (id, platform_id, type, data, created_at)
        select 'evt_c_' || g, 'plt_c', 'order.created', jsonb_build_object('object', jsonb_build_object('id', 'ord_c_' || g)),
               date_trunc('milliseconds', now()) - (g * interval '5 hours 33 minutes 0.123 seconds')
        from generate_series(1, 599) g`.execute(db);
      await sql`insert into events (id, platform_id, type, data, created_at) values ('evt_c_old', 'plt_c', 'order.created', '{"object":{"id":"ord_old"}}', now() - interval '730 days')`.execute(db);
      await sql`insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, attempts, created_at, last_status, last_attempt_at)
        select 'dlv_' || e.id || '_' || w.id, e.id, w.id, 'plt_c', case when random() < 0.5 then 'succeeded' else 'pending' end, 1, e.created_at, 200, e.created_at
        from events e cross join webhook_endpoints w`.execute(db);
      await sql`insert into webhook_attempts (delivery_id, attempted_at, status, duration_ms, request_headers)
        select d.id, d.created_at + interval '1 second', 200, 12, '{"a":"b"}' from webhook_deliveries d where d.endpoint_id = 'we_c1'`.execute(db);
      await sql`insert into request_logs (platform_id, request_id, method, path, status, principal_type, duration_ms, created_at)
        select 'plt_c', 'req_' || g, 'GET', '/v1/orders', 200, 'secret_key', 3, now() - g * interval '1 hour' from generate_series(1, 500) g`.execute(db);

      const digest = async () => Object.fromEntries(await Promise.all(([
        ['events', sql`select count(*)::text as n, md5(string_agg(concat_ws('|', id, platform_id, type, data::text, created_at::text, tx::text), ',' order by id)) as h from events`],
        ['webhook_deliveries', sql`select count(*)::text as n, md5(string_agg(concat_ws('|', id, event_id, endpoint_id, state, attempts, next_attempt_at, last_status, created_at, last_attempt_at), ',' order by id)) as h from webhook_deliveries`],
        ['webhook_attempts', sql`select count(*)::text as n, md5(string_agg(concat_ws('|', id, delivery_id, attempted_at, status, duration_ms, request_headers::text), ',' order by id)) as h from webhook_attempts`],
        ['request_logs', sql`select count(*)::text as n, md5(string_agg(concat_ws('|', id, platform_id, request_id, created_at), ',' order by id)) as h from request_logs`],
      ] as const).map(async ([t, q]) => [t, (await q.execute(db)).rows[0]] as const)));
      const before = await digest();
      expect(before.events).toMatchObject({ n: '600' });
      expect(before.webhook_deliveries).toMatchObject({ n: '1200' });
      expect(before.webhook_attempts).toMatchObject({ n: '600' });
      expect(before.request_logs).toMatchObject({ n: '500' });

      const applied = await migrate(db); // 034 and every later migration, in name order
      expect(applied[0]).toBe('034_partitions.sql');
      expect(applied.every((m) => m > '034')).toBe(true);
      expect(await digest()).toEqual(before);

      const kinds = (await sql<{ relname: string; relkind: string }>`select relname, relkind::text from pg_class
        where relname in ('events', 'webhook_deliveries', 'webhook_attempts', 'request_logs')`.execute(db)).rows;
      expect(kinds.map((k) => k.relkind)).toEqual(['p', 'p', 'p', 'p']);
      // Each delivery took its event's created_at; the 2-year-old event and its deliveries sit in DEFAULT, the others in their week.
      expect((await sql<{ n: string }>`select count(*)::text as n from webhook_deliveries d join events e on e.id = d.event_id
        where d.event_created_at = e.created_at`.execute(db)).rows[0]!.n).toBe('1200');
      const where = async (table: string, id: string) =>
        (await sql<{ t: string }>`select tableoid::regclass::text as t from ${sql.table(table)} where id = ${id}`.execute(db)).rows[0]!.t;
      expect(await where('events', 'evt_c_old')).toBe('events_default');
      const recent = (await sql<{ created_at: Date }>`select created_at from events where id = 'evt_c_1'`.execute(db)).rows[0]!.created_at;
      expect(await where('events', 'evt_c_1')).toBe(`events_p${weekOf(recent).toISOString().slice(0, 10).replace(/-/g, '')}`);
      expect((await sql<{ n: string }>`select count(*)::text as n from events_default`.execute(db)).rows[0]!.n).toBe('1');
      // The ids continue from their sequences; a new delivery must name an existing event (the composite foreign key).
      const maxLog = (await sql<{ m: string }>`select max(id)::text as m from request_logs`.execute(db)).rows[0]!.m;
      const next = (await sql<{ id: string }>`insert into request_logs (platform_id, request_id, method, path, status, principal_type, duration_ms, created_at)
        values ('plt_c', 'req_new', 'GET', '/', 200, 'secret_key', 1, now()) returning id::text`.execute(db)).rows[0]!.id;
      expect(BigInt(next)).toBeGreaterThan(BigInt(maxLog));
      await expect(sql`insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, event_created_at)
        values ('dlv_bad', 'evt_c_1', 'we_c1', 'plt_c', 'pending', now() - interval '1000 days')`.execute(db)).rejects.toThrow(/foreign key/);
      await expect(sql`insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, event_created_at)
        values ('dlv_dup', 'evt_c_1', 'we_c1', 'plt_c', 'pending', ${recent})`.execute(db)).rejects.toThrow(/unique|duplicate/);
    } finally {
      await database.close();
    }
  });
});

describe(`week partitions and retention (${TEST_DB})`, () => {
  let h: Harness;
  let p: Awaited<ReturnType<Harness['platform']>>;
  let endpointId: string;
  beforeAll(async () => {
    h = await createHarness(fakeChain());
    p = await h.platform();
    endpointId = (await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: 'http://127.0.0.1:9/h', subscribed_events: ['*'] } })).body.id;
  }, 120_000);
  afterAll(() => h?.close());

  const insertEvent = async (id: string, at: Date) => {
    await sql`insert into events (id, platform_id, type, data, created_at) values (${id}, ${p.platformId}, 'order.created', '{"object":{"id":"ord_x"}}', ${at})`.execute(h.db);
    await sql`insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, event_created_at) values (${'dlv_' + id}, ${id}, ${endpointId}, ${p.platformId}, 'succeeded', ${at})`.execute(h.db);
    await sql`insert into webhook_attempts (delivery_id, attempted_at, status, duration_ms) values (${'dlv_' + id}, ${at}, 200, 5)`.execute(h.db);
  };
  const partitionOf = async (table: string, id: string) =>
    (await sql<{ t: string }>`select tableoid::regclass::text as t from ${sql.table(table)} where id = ${id}`.execute(h.db)).rows[0]?.t ?? null;
  const partitions = async (table: string) =>
    (await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = ${table}::regclass order by 1`
      .execute(h.db)).rows.map((r) => r.name);
  const tag = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');

  it('the events API serves no event older than EVENT_RETENTION_DAYS (30), dropped or not', async () => {
    const now = Date.now();
    await insertEvent('evt_api_31d', new Date(now - 31 * DAY));
    await insertEvent('evt_api_29d', new Date(now - 29 * DAY));
    expect((await h.request('GET', '/v1/events/evt_api_31d', { key: p.secretKey })).status).toBe(404);
    expect((await h.request('GET', '/v1/events/evt_api_29d', { key: p.secretKey })).status).toBe(200);
    const ids = (await h.request('GET', '/v1/events?limit=100', { key: p.secretKey })).body.data.map((e: { id: string }) => e.id);
    expect(ids).toContain('evt_api_29d');
    expect(ids).not.toContain('evt_api_31d');
    expect((await h.request('GET', '/v1/events?after=evt_api_31d', { key: p.secretKey })).status).toBe(404);
  });

  it('DEFAULT catches a row of a week with no partition; the pass then leaves that week to DEFAULT and says so', async () => {
    const far = new Date(Date.now() + 200 * DAY);
    await insertEvent('evt_far', far);
    expect(await partitionOf('events', 'evt_far')).toBe('events_default');
    expect(await partitionOf('webhook_deliveries', 'dlv_evt_far')).toBe('webhook_deliveries_default');
    const r = await h.services.retention.runOnce(far);
    expect(r!.skipped).toContain(`events@${weekOf(far).toISOString().slice(0, 10)}`);
    expect((await h.request('GET', '/v1/events/evt_far', { key: p.secretKey })).status).toBe(200);
    await sql`delete from webhook_attempts where delivery_id = 'dlv_evt_far'`.execute(h.db);
    await sql`delete from webhook_deliveries where id = 'dlv_evt_far'`.execute(h.db);
    await sql`delete from events where id = 'evt_far'`.execute(h.db);
  });

  it('creates this week and 4 ahead, drops whole weeks past retention and deletes old DEFAULT rows, keeps the rest', async () => {
    const now = new Date();
    const oldWeek = new Date(weekOf(now).getTime() - 8 * 7 * DAY);
    for (const [t, k] of [['events', 'created_at'], ['webhook_deliveries', 'event_created_at'], ['webhook_attempts', 'attempted_at'], ['request_logs', 'created_at']]) {
      await sql`select week_partition(${t}, ${k}, ${oldWeek.toISOString().slice(0, 10)}::date)`.execute(h.db);
    }
    await insertEvent('evt_week_old', new Date(oldWeek.getTime() + DAY));
    expect(await partitionOf('events', 'evt_week_old')).toBe(`events_p${tag(oldWeek)}`);
    await insertEvent('evt_default_old', new Date(now.getTime() - 200 * DAY));
    expect(await partitionOf('events', 'evt_default_old')).toBe('events_default');
    await insertEvent('evt_recent', new Date(now.getTime() - DAY));
    await sql`insert into request_logs (platform_id, request_id, method, path, status, principal_type, duration_ms, created_at)
      values (${p.platformId}, 'req_old', 'GET', '/', 200, 'secret_key', 1, ${new Date(oldWeek.getTime() + DAY)}),
             (${p.platformId}, 'req_new', 'GET', '/', 200, 'secret_key', 1, ${now})`.execute(h.db);

    const later = new Date(now.getTime() + 7 * DAY);
    const r = await h.services.retention.runOnce(later);
    expect(r!.dropped).toEqual(expect.arrayContaining([`events_p${tag(oldWeek)}`, `webhook_deliveries_p${tag(oldWeek)}`,
      `webhook_attempts_p${tag(oldWeek)}`, `request_logs_p${tag(oldWeek)}`]));
    expect(r!.deletedFromDefault.events).toBeGreaterThanOrEqual(1);
    for (const t of ['events', 'webhook_deliveries', 'webhook_attempts', 'request_logs']) {
      const names = await partitions(t);
      expect(names).not.toContain(`${t}_p${tag(oldWeek)}`);
      for (let w = 0; w <= 4; w++) expect(names).toContain(`${t}_p${tag(new Date(weekOf(later).getTime() + w * 7 * DAY))}`);
      expect(names).toContain(`${t}_default`);
    }
    expect(await partitionOf('events', 'evt_week_old')).toBeNull();
    expect(await partitionOf('events', 'evt_default_old')).toBeNull();
    expect(await partitionOf('webhook_deliveries', 'dlv_evt_default_old')).toBeNull();
    expect(await partitionOf('events', 'evt_recent')).not.toBeNull();
    expect(await partitionOf('webhook_deliveries', 'dlv_evt_recent')).not.toBeNull();
    expect((await sql<{ n: string }>`select count(*)::text as n from webhook_attempts where delivery_id = 'dlv_evt_recent'`.execute(h.db)).rows[0]!.n).toBe('1');
    const logs = (await sql<{ request_id: string }>`select request_id from request_logs where request_id in ('req_old', 'req_new')`.execute(h.db)).rows.map((x) => x.request_id);
    expect(logs).toEqual(['req_new']);
    // A second pass finds nothing more to do.
    const again = await h.services.retention.runOnce(later);
    expect(again).toMatchObject({ created: [], dropped: [], deletedFromDefault: { events: 0, webhook_deliveries: 0, webhook_attempts: 0, request_logs: 0 } });
  });

  it('deletes signed attempts of finished operator transactions past OPERATOR_TX_ATTEMPT_RETENTION_DAYS (180), keeps those in flight and the mined one', async () => {
    const old = new Date(Date.now() - 200 * DAY);
    await sql`insert into operator_txs (id, chain_id, purpose, ref_id, to_address, calldata, state, sender, nonce, tx_hash, created_at)
      values ('otx_done', 84532, 'refund', 're_1', '0x1', '0x', 'done', '0xs', 1, '0xmined', ${old}),
             ('otx_sent', 84532, 'refund', 're_2', '0x1', '0x', 'sent', '0xs', 2, '0xs2b', ${old})`.execute(h.db);
    await sql`insert into operator_tx_attempts (tx_hash, operator_tx_id, nonce, raw_tx, max_fee_per_gas, max_priority_fee_per_gas, created_at)
      values ('0xreplaced', 'otx_done', 1, '0x', 1, 1, ${old}), ('0xmined', 'otx_done', 1, '0x', 2, 1, ${old}),
             ('0xs2a', 'otx_sent', 2, '0x', 1, 1, ${old}), ('0xs2b', 'otx_sent', 2, '0x', 2, 1, ${old})`.execute(h.db);
    const r = await h.services.retention.runOnce();
    expect(r!.operatorTxAttempts).toBe(1);
    const left = (await sql<{ tx_hash: string }>`select tx_hash from operator_tx_attempts order by tx_hash`.execute(h.db)).rows.map((x) => x.tx_hash);
    expect(left).toEqual(['0xmined', '0xs2a', '0xs2b']);
  });

  it('an order whose events are past retention (and gone) still shows on its timeline what its own rows know', async () => {
    const m = await merchant(h, p.secretKey);
    const o = await order(h, p.secretKey, m.external_id);
    // An event about it from before the retention (40 days ago), with its delivery: on the timeline until the pass.
    const at = new Date(Date.now() - 40 * DAY);
    await sql`insert into events (id, platform_id, type, data, created_at)
      values ('evt_tl_old', ${p.platformId}, 'order.created', ${JSON.stringify({ object: { id: o.id } })}, ${at})`.execute(h.db);
    await sql`insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, event_created_at)
      values ('dlv_tl_old', 'evt_tl_old', ${endpointId}, ${p.platformId}, 'succeeded', ${at})`.execute(h.db);
    const before = (await h.request('GET', `/v1/orders/${o.id}/timeline`, { key: p.secretKey })).body;
    expect(JSON.stringify(before)).toContain('evt_tl_old');
    await h.services.retention.runOnce();
    expect(await partitionOf('events', 'evt_tl_old')).toBeNull();
    expect(await partitionOf('webhook_deliveries', 'dlv_tl_old')).toBeNull();
    const res = await h.request('GET', `/v1/orders/${o.id}/timeline`, { key: p.secretKey });
    expect(res.status).toBe(200);
    const items = res.body.data as { kind: string; title: string }[];
    expect(items.some((i) => i.kind === 'event')).toBe(false);
    expect(items.map((i) => i.title)).toEqual(expect.arrayContaining([expect.stringMatching(/^Order .* created for 25/)]));
  });
});
