import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeChain, merchant, order } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** Migration 025 on a database whose listed tables hold microseconds: values, indexes, defaults. */
const FILE = path.join(import.meta.dirname, '../../src/db/migrations/025_ms_timestamps.sql');
// events and webhook_deliveries are partitioned by created_at since migration 034 (a partition key's type cannot be
// altered): their statements of 025 are left out here; 034 kept their timestamptz(3) (partitions-retention.test.ts).
const PARTITIONED = ['events', 'webhook_deliveries'];
const TABLES = ['merchants', 'orders', 'refunds', 'settlements', 'webhook_endpoints', 'unmatched_transfers', 'api_keys', 'key_audit_log'];
const unpartitioned = (text: string) => text.split(/;\n/).filter((st) => !PARTITIONED.some((t) => st.trimStart().startsWith(`alter table ${t} `))).join(';\n');

let h: Harness;
beforeAll(async () => {
  h = await createHarness(fakeChain());
}, 60_000);
afterAll(() => h?.close());

const indexes = async () => (await sql<{ indexname: string; indexdef: string; valid: boolean }>`
  select i.indexname, i.indexdef, x.indisvalid as valid from pg_indexes i
  join pg_class c on c.relname = i.indexname join pg_index x on x.indexrelid = c.oid
  where i.schemaname = 'public' and i.tablename = any(${TABLES}::text[]) order by i.indexname`.execute(h.db)).rows;
const columns = async () => (await sql<{ table_name: string; datetime_precision: number; column_default: string }>`
  select table_name, datetime_precision, column_default from information_schema.columns
  where table_schema = 'public' and column_name = 'created_at' and table_name = any(${TABLES}::text[]) order by table_name`.execute(h.db)).rows;

describe('migration 025 (listed tables keep created_at in milliseconds)', () => {
  it('truncates stored microseconds to what a JS Date read of them showed, keeps every index, stamps new rows at milliseconds', async () => {
    const p = await h.platform();
    const m = await merchant(h, p.secretKey);
    const o = await order(h, p.secretKey, m.external_id);
    const before = await indexes();
    expect(before.length).toBeGreaterThan(TABLES.length);
    // The database as it was before 025 (the harness migrated it to the newest version), holding microseconds.
    for (const t of TABLES) await sql.raw(`alter table ${t} alter column created_at type timestamptz, alter column created_at set default now()`).execute(h.db);
    await sql`update merchants set created_at = '2026-01-01 23:59:59.999999+00' where id = ${m.id}`.execute(h.db);
    await sql`update orders set created_at = '2026-03-01 00:00:00.123999+00' where id = ${o.id}`.execute(h.db);
    expect((await columns()).map((c) => c.datetime_precision)).toEqual(TABLES.map(() => 6));

    await sql.raw(unpartitioned(readFileSync(FILE, 'utf8'))).execute(h.db);
    // Truncated, not rounded: the API shows each row as it did before.
    expect((await h.request('GET', `/v1/merchants/${m.id}`, { key: p.secretKey })).body.created_at).toBe('2026-01-01T23:59:59.999Z');
    expect((await h.request('GET', `/v1/orders/${o.id}`, { key: p.secretKey })).body.created_at).toBe('2026-03-01T00:00:00.123Z');
    expect(await indexes()).toEqual(before);
    for (const c of await columns()) {
      expect(c.datetime_precision, c.table_name).toBe(3);
      expect(c.column_default, c.table_name).toMatch(/date_trunc\('milliseconds'(::text)?, now\(\)\)/);
    }
    // A row stamped by the default inside a transaction holds that transaction's clock, truncated.
    const r = await h.db.transaction().execute(async (tx) => {
      await sql`insert into unmatched_transfers (id, chain_id, token, from_address, value, tx_hash, block_number, block_time, log_index, event_key)
        values ('utr_default', 84532, '0x', '0x', 1, '0x', 1, now(), 0, 'Transfer:utr_default')`.execute(tx);
      return (await sql<{ ok: boolean }>`select created_at = date_trunc('milliseconds', now()) as ok from unmatched_transfers where id = 'utr_default'`.execute(tx)).rows[0];
    });
    expect(r?.ok).toBe(true);
  });
});
