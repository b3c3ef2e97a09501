import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { freshDatabase } from '../helpers/harness.js';

/**
 * Migration 009 on a database that already holds applied logs: each row gets the event key the indexer
 * now writes (OrderPaid, BatchSettled: from the stored id), or a position key when the old row does not
 * tell (a Refunded without its refund, a release without its batch), and the key is unique per chain.
 */
const DIR = path.join(import.meta.dirname, '../../src/db/migrations');
let database: Database;
const run = async (file: string) => void (await sql.raw(readFileSync(path.join(DIR, file), 'utf8')).execute(database.db));

beforeAll(async () => {
  database = await freshDatabase();
  for (const f of readdirSync(DIR).filter((f) => f.endsWith('.sql') && f < '009').sort()) await run(f);
});
afterAll(async () => database?.close());

describe('migration 009 on existing chain_logs', () => {
  it('backfills event keys and makes them the unique key', async () => {
    const orderId = `0x${'AB'.repeat(32)}`;
    const batchId = `0x${'cd'.repeat(32)}`;
    const tx = `0x${'11'.repeat(32)}`;
    const row = (log_index: number, event_name: string, onchain_id: string | null) =>
      sql`insert into chain_logs (chain_id, tx_hash, log_index, block_number, block_hash, event_name, onchain_id)
          values (84532, ${tx}, ${log_index}, 7, ${`0x${'22'.repeat(32)}`}, ${event_name}, ${onchain_id})`.execute(database.db);
    await row(1, 'OrderPaid', orderId);
    await row(2, 'BatchSettled', batchId);
    await row(3, 'Refunded', orderId);
    await row(4, 'ReserveReleased', orderId);
    await run('009_indexer.sql');
    const keys = (await sql<{ log_index: number; event_key: string }>`select log_index, event_key from chain_logs order by log_index`.execute(database.db)).rows;
    expect(keys.map((k) => k.event_key)).toEqual([
      `OrderPaid:${orderId.toLowerCase()}`,
      `BatchSettled:${batchId}`,
      `Refunded:legacy:${tx}:3`,
      `ReserveReleased:legacy:${tx}:4`,
    ]);
    // The same payment again, at another position: refused by the key.
    await expect(sql`insert into chain_logs (chain_id, tx_hash, log_index, block_number, block_hash, event_name, onchain_id, event_key)
      values (84532, ${`0x${'33'.repeat(32)}`}, 9, 8, ${`0x${'44'.repeat(32)}`}, 'OrderPaid', ${orderId}, ${`OrderPaid:${orderId.toLowerCase()}`})`.execute(database.db)).rejects.toThrow(/duplicate key/);
    const cursorCols = (await sql<{ column_name: string }>`select column_name from information_schema.columns where table_name = 'chain_cursors' order by column_name`.execute(database.db)).rows.map((r) => r.column_name);
    expect(cursorCols).toEqual(expect.arrayContaining(['last_block_hash', 'last_block_time']));
  });
});
