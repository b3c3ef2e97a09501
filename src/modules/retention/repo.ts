import { sql } from 'kysely';
import type { Db, Executor } from '../../db/client.js';

/** The week-partitioned tables (migration 034) and their partition keys. */
export const PARTITIONED = {
  events: 'created_at',
  webhook_deliveries: 'event_created_at',
  webhook_attempts: 'attempted_at',
  request_logs: 'created_at',
} as const;
export type PartitionedTable = keyof typeof PARTITIONED;

const DAY_MS = 86_400_000;
/** The Monday 00:00 UTC of the week holding `t`. */
export const weekOf = (t: Date) => {
  const d = new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()));
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY_MS);
};
const ymd = (d: Date) => d.toISOString().slice(0, 10);

export const retentionRepo = {
  /** Creates the week's partition unless it exists or DEFAULT holds rows of that week (week_partition, migration 034). */
  ensureWeek: async (db: Executor, table: PartitionedTable, monday: Date) =>
    (await sql<{ r: 'created' | 'exists' | 'default_has_rows' }>`select week_partition(${table}, ${PARTITIONED[table]}, ${ymd(monday)}::date) as r`
      .execute(db)).rows[0]!.r,

  /** The table's week partitions, each with its Monday. */
  weeks: async (db: Executor, table: PartitionedTable) =>
    (await sql<{ name: string }>`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ${table}::regclass and c.relname ~ ${`^${table}_p[0-9]{8}$`} order by c.relname`.execute(db)).rows
      .map((r) => { const s = r.name.slice(-8); return { name: r.name, monday: new Date(`${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6)}T00:00:00Z`) }; }),

  /**
   * Drops a week partition. One of events is detached first (a partition of a table other tables' foreign keys
   * reference cannot be dropped outright; the detach checks that no delivery still references its rows).
   * lock_timeout: the detach and the drop wait at most 5 s for the parent's lock, never queueing writers behind them.
   */
  dropWeek: (db: Db, table: PartitionedTable, name: string) =>
    db.transaction().execute(async (tx) => {
      await sql`set local lock_timeout = '5s'`.execute(tx);
      if (table === 'events') await sql`alter table events detach partition ${sql.table(name)}`.execute(tx);
      await sql`drop table ${sql.table(name)}`.execute(tx);
    }),

  /** Deletes up to `limit` rows older than `before` from the table's DEFAULT partition; returns the count. */
  deleteFromDefault: async (db: Executor, table: Exclude<PartitionedTable, 'events'>, before: Date, limit: number) => {
    const part = sql.table(`${table}_default`);
    const key = sql.ref(PARTITIONED[table]);
    const r = await sql`delete from ${part} where ctid = any(array(select ctid from ${part} where ${key} < ${before} limit ${limit}))`.execute(db);
    return Number(r.numAffectedRows ?? 0n);
  },

  /**
   * The same for events: the deliveries of the events deleted go first (their foreign key), in one transaction.
   */
  deleteEventsFromDefault: (db: Db, before: Date, limit: number) =>
    db.transaction().execute(async (tx) => {
      const victims = (await sql<{ id: string; created_at: Date }>`
        select id, created_at from events_default where created_at < ${before} limit ${limit} for update`.execute(tx)).rows;
      if (victims.length === 0) return 0;
      const ids = victims.map((v) => v.id);
      const ats = victims.map((v) => v.created_at.toISOString());
      await sql`delete from webhook_deliveries d using unnest(${ids}::text[], ${ats}::timestamptz[]) as v(id, at)
        where d.event_id = v.id and d.event_created_at = v.at`.execute(tx);
      const r = await sql`delete from events_default e using unnest(${ids}::text[], ${ats}::timestamptz[]) as v(id, at)
        where e.id = v.id and e.created_at = v.at`.execute(tx);
      return Number(r.numAffectedRows ?? 0n);
    }),

  /**
   * Deletes up to `limit` signed attempts made before `before` of operator transactions that are over (done or
   * rejected: the sender's monitor reads attempts only of transactions in flight), except the attempt whose hash is
   * the transaction's own (tx_hash, the one that was mined). Returns the count.
   */
  deleteFinishedOperatorAttempts: async (db: Executor, before: Date, limit: number) =>
    Number((await sql`
      delete from operator_tx_attempts a where a.tx_hash = any(array(
        select a2.tx_hash from operator_tx_attempts a2 join operator_txs t on t.id = a2.operator_tx_id
        where a2.created_at < ${before} and t.state in ('done', 'rejected') and a2.tx_hash is distinct from t.tx_hash
        limit ${limit}))`.execute(db)).numAffectedRows ?? 0n),

  /** One pass at a time across instances: a session advisory lock on one connection, released at the end. */
  exclusive: <T>(db: Db, fn: (conn: Db) => Promise<T>) =>
    db.connection().execute(async (conn) => {
      const got = (await sql<{ ok: boolean }>`select pg_try_advisory_lock(${RETENTION_LOCK}) as ok`.execute(conn)).rows[0]!.ok;
      if (!got) return null;
      try {
        return await fn(conn);
      } finally {
        await sql`select pg_advisory_unlock(${RETENTION_LOCK})`.execute(conn);
      }
    }),
};

const RETENTION_LOCK = 727_034;
