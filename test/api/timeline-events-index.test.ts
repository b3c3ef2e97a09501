import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { timelineRepo } from '../../src/modules/timelines/repo.js';
import { createHarness, TEST_DB, type Harness } from '../helpers/harness.js';

/**
 * The timeline's lookup of an object's events (modules/timelines/repo.ts eventsAbout) uses the expression indexes of
 * migration 032 instead of walking the platform's events. Shown with EXPLAIN on whichever database the tests run
 * on (PGlite, or PostgreSQL with TEST_DB=postgres), over a platform with thousands of events.
 */
let h: Harness;
let platformId: string;
let other: string;
const EVENTS = 20_000;
// Every row in the current week's partition (the bulk spread over its first 4.6 days), whatever the time of the run:
// rows `now() - n seconds` split across two weeks in the hours after Monday 00:00 UTC, and the planner rightly scans
// a partition holding a few hundred rows instead of probing its index, which this test would call a scan.
const WEEK_START = sql`(date_trunc('week', now() at time zone 'UTC') at time zone 'UTC')`;

beforeAll(async () => {
  h = await createHarness();
  const mine = await h.platform();
  platformId = mine.platformId;
  other = (await h.platform({ name: 'Other Platform' })).platformId;
  // Many events of both platforms about other objects, then the few about ord_tl_1 (its own, its refund's, its session's).
  await sql`insert into events (id, platform_id, type, data, created_at)
    select 'evt_tl_' || g, case when g % 2 = 0 then ${platformId} else ${other} end, 'order.confirmed',
           jsonb_build_object('object', jsonb_build_object('id', 'ord_bulk_' || g, 'order_id', null)),
           ${WEEK_START} + g * interval '20 seconds'
    from generate_series(1, ${EVENTS}) g`.execute(h.db);
  await sql`insert into events (id, platform_id, type, data, created_at)
    select 'evt_tl_re_' || g, ${platformId}, 'refund.completed',
           jsonb_build_object('object', jsonb_build_object('id', 're_bulk_' || g, 'order_id', 'ord_bulk_' || (g * 2))),
           ${WEEK_START} + g * interval '20 seconds' + interval '10 seconds'
    from generate_series(1, 2000) g`.execute(h.db);
  await sql`insert into events (id, platform_id, type, data, created_at) values
    ('evt_tl_a', ${platformId}, 'order.confirmed', '{"object":{"id":"ord_tl_1"}}', now()),
    ('evt_tl_b', ${platformId}, 'refund.completed', '{"object":{"id":"re_tl_1","order_id":"ord_tl_1"}}', now() + interval '1 second'),
    ('evt_tl_c', ${platformId}, 'checkout.session.completed', '{"object":{"id":"cs_tl_1","order_id":"ord_tl_1"}}', now() + interval '2 seconds'),
    ('evt_tl_x', ${other}, 'order.confirmed', '{"object":{"id":"ord_tl_1"}}', now())`.execute(h.db);
  // A delivery of every bulk event to one endpoint: each timeline event's deliveries are looked up by event id.
  const ep = (await h.request('POST', '/v1/webhooks/endpoints', { key: mine.secretKey, body: { url: 'http://127.0.0.1:9/h', subscribed_events: ['*'] } })).body.id;
  await sql`insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, event_created_at)
    select 'dlv_tl_' || g, e.id, ${ep}, ${platformId}, 'succeeded', e.created_at from generate_series(1, ${EVENTS}) g join events e on e.id = 'evt_tl_' || g`.execute(h.db);
  await sql`analyze events`.execute(h.db);
  await sql`analyze webhook_deliveries`.execute(h.db);
});
afterAll(async () => { await h?.close(); });

type PlanNode = { 'Node Type': string; 'Index Name'?: string; 'Relation Name'?: string; Plans?: PlanNode[] };
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe(`timeline event lookup (${TEST_DB})`, () => {
  it('finds an order\'s events by object id and by order_id, of its own platform only', async () => {
    const rows = await timelineRepo.eventsAbout(h.db, platformId, ['ord_tl_1', 're_tl_1', 'cs_tl_1']);
    expect(rows.map((r) => r.id)).toEqual(['evt_tl_a', 'evt_tl_b', 'evt_tl_c']);
  });

  it('probes the expression indexes instead of scanning the platform\'s events (EXPLAIN)', async () => {
    const q = timelineRepo.eventsAboutQuery(platformId, ['ord_tl_1', 're_tl_1', 'cs_tl_1']);
    const plan = (await sql<{ 'QUERY PLAN': unknown }>`explain (format json) ${q}`.execute(h.db)).rows[0]!['QUERY PLAN'];
    const root = (typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: PlanNode }[];
    const all = nodes(root[0]!.Plan);
    // The tables are partitioned by week (migration 034): a partition's index is named after the partition; its
    // parent index is the one the lookup means. Empty partitions (the weeks ahead) may be scanned: they hold no row.
    const parentOf = new Map((await sql<{ child: string; parent: string }>`
      select c.relname as child, p.relname as parent from pg_inherits i join pg_class c on c.oid = i.inhrelid
      join pg_class p on p.oid = i.inhparent where c.relkind = 'i'`.execute(h.db)).rows.map((r) => [r.child, r.parent]));
    const holding = new Set((await sql<{ t: string }>`
      select distinct tableoid::regclass::text as t from events union select distinct tableoid::regclass::text from webhook_deliveries`.execute(h.db)).rows.map((r) => r.t));
    const table = (n: PlanNode) => (n['Relation Name'] ?? '').replace(/_(p\d{8}|default)$/, '');
    const index = (n: PlanNode) => (n['Index Name'] ? parentOf.get(n['Index Name']) ?? n['Index Name'] : undefined);
    const described = JSON.stringify(all.map((n) => [n['Node Type'], n['Index Name'] ?? n['Relation Name'] ?? '']));
    const onEvents = all.filter((n) => table(n) === 'events' || index(n)?.startsWith('events_'));
    const used = onEvents.map(index).filter(Boolean);
    expect(used, described).toEqual(expect.arrayContaining(['events_object_id_idx', 'events_object_order_id_idx']));
    expect(onEvents.some((n) => n['Node Type'] === 'Seq Scan' && holding.has(n['Relation Name']!)), described).toBe(false);
    expect(used).not.toContain('events_platform_idx');
    const onDeliveries = all.filter((n) => table(n) === 'webhook_deliveries' || index(n)?.startsWith('webhook_deliveries_'));
    expect(onDeliveries.some((n) => n['Node Type'] === 'Seq Scan' && holding.has(n['Relation Name']!)), described).toBe(false);
    expect([...new Set(onDeliveries.map(index).filter(Boolean))]).toEqual(['webhook_deliveries_event_idx']);
  });
});
