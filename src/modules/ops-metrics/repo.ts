import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';

/** Pending deliveries are counted up to this many: an endpoint down for days must not make a scrape scan millions of rows. */
export const PENDING_COUNT_CAP = 100_000;

/**
 * What an operator alerts on, read from the database only (no RPC: a scrape every 15 s must not spend the chain
 * provider's quota). Each query uses an existing partial index or a small table.
 */
export const opsRepo = {
  /** Per chain: the indexer's lag behind its target and how long since the lease holder last woke. */
  indexer: async (db: Executor) => (await sql<{ chain_id: number; lag: string | null; heartbeat_age: number | null; consecutive_errors: number; enabled: boolean }>`
    select i.chain_id, (i.target - c.last_block)::text as lag,
      extract(epoch from (now() - i.heartbeat_at))::float8 as heartbeat_age, i.consecutive_errors, i.enabled
    from indexer_chains i left join chain_cursors c on c.chain_id = i.chain_id`.execute(db)).rows,

  /** Open operator intents (operator_txs_open_idx) by chain, key and state, and the age of the oldest. */
  operatorTxs: async (db: Executor) => (await sql<{ chain_id: number; key_role: string; state: string; n: string; oldest_age: number }>`
    select chain_id, key_role, state, count(*)::text as n, extract(epoch from (now() - min(created_at)))::float8 as oldest_age
    from operator_txs where state in ('queued', 'signed', 'sent', 'mined') group by chain_id, key_role, state`.execute(db)).rows,

  /** Pending deliveries (webhook_deliveries_due_idx), capped, and how long the most overdue one has waited. */
  deliveries: async (db: Executor) => (await sql<{ n: string; oldest_due_age: number | null }>`
    select (select count(*) from (select 1 from webhook_deliveries where state = 'pending' limit ${PENDING_COUNT_CAP}) p)::text as n,
      (select extract(epoch from (now() - min(next_attempt_at)))::float8 from webhook_deliveries where state = 'pending') as oldest_due_age`.execute(db)).rows[0]!,

  /** Alerts written so far, by chain and kind (a small table: each row is something an operator must look at). */
  alerts: async (db: Executor) => (await sql<{ chain_id: number; kind: string; n: string }>`
    select chain_id, kind, count(*)::text as n from chain_alerts group by chain_id, kind`.execute(db)).rows,
};
