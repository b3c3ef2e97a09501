import { hostname } from 'node:os';
import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';
import { randomBase62 } from '../../lib/ids.js';

/**
 * Per-chain leadership through the database (indexer_chains): one instance holds a lease it renews on
 * every wake-up; a lapsed lease is taken over by whichever instance asks next. /_/indexer/start|stop set
 * `enabled`, which every instance reads at each wake-up. The advisory lock and the cursor compare-and-set
 * stay underneath as the safety net, and a range is applied only while the lease and `enabled` still hold.
 */
export const newInstanceId = () => `${hostname()}:${process.pid}:${randomBase62(6)}`;

/** A holder on this host whose process is gone (killed, crashed, restarted): its lease need not run out. */
export function deadLocalHolder(holder: string | null): boolean {
  const [host, pid] = (holder ?? '').split(':');
  if (host !== hostname() || !pid || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export const leaseRepo = {
  /** Takes or renews the lease when the chain is enabled and the lease is ours, free or lapsed. */
  claim: async (db: Executor, chainId: number, holder: string, ttlMs: number): Promise<boolean> =>
    (await sql<{ chain_id: number }>`
      insert into indexer_chains (chain_id, lease_holder, lease_until, heartbeat_at)
      values (${chainId}, ${holder}, now() + ${ttlMs}::integer * interval '1 millisecond', now())
      on conflict (chain_id) do update
        set lease_holder = excluded.lease_holder, lease_until = excluded.lease_until, heartbeat_at = excluded.heartbeat_at
        where indexer_chains.enabled and (indexer_chains.lease_holder is null or indexer_chains.lease_holder = excluded.lease_holder
          or indexer_chains.lease_until < now())
      returning chain_id`.execute(db)).rows.length > 0,

  /** Ends the lease of a holder on this host whose process is gone (compare-and-set on the holder). */
  reapDeadLocal: async (db: Executor, chainId: number) => {
    const row = await db.selectFrom('indexer_chains').select('lease_holder').where('chain_id', '=', chainId)
      .where(sql<boolean>`lease_until > now()`).executeTakeFirst();
    if (!row || !deadLocalHolder(row.lease_holder)) return;
    await db.updateTable('indexer_chains').set({ lease_until: sql<Date>`now()` })
      .where('chain_id', '=', chainId).where('lease_holder', '=', row.lease_holder).execute();
  },

  /** On a local stop: the lease lapses now, so another instance takes over without waiting. */
  release: (db: Executor, chainId: number, holder: string) =>
    db.updateTable('indexer_chains').set({ lease_until: sql<Date>`now()` })
      .where('chain_id', '=', chainId).where('lease_holder', '=', holder).execute(),

  /**
   * Inside the applying transaction: still ours and still enabled? Locks the row, so a stop (which updates
   * it) waits for a range being applied, and no range applies after the stop committed.
   */
  stillHeld: async (tx: Executor, chainId: number, holder: string) =>
    (await tx.selectFrom('indexer_chains').select('chain_id').where('chain_id', '=', chainId)
      .where('lease_holder', '=', holder).where('enabled', '=', true).forUpdate().executeTakeFirst()) !== undefined,

  setEnabled: (db: Executor, chainId: number, enabled: boolean) =>
    db.insertInto('indexer_chains').values({ chain_id: chainId, enabled })
      .onConflict((oc) => oc.column('chain_id').doUpdateSet({ enabled })).execute(),
};

export type RunStats = { head: bigint; target: bigint; finality: string; source: string };

/** What /_/indexer/status shows, written by the instance that indexes. */
export const statsRepo = {
  ran: (db: Executor, chainId: number, r: RunStats, at: Date) =>
    db.insertInto('indexer_chains')
      .values({ chain_id: chainId, head: r.head, target: r.target, finality: r.finality, finality_source: r.source, last_run_at: at, consecutive_errors: 0, last_error: null })
      .onConflict((oc) => oc.column('chain_id').doUpdateSet({
        head: r.head, target: r.target, finality: r.finality, finality_source: r.source, last_run_at: at, consecutive_errors: 0, last_error: null,
      })).execute(),

  failed: (db: Executor, chainId: number, message: string, at: Date) =>
    db.insertInto('indexer_chains').values({ chain_id: chainId, last_error: message, last_error_at: at, consecutive_errors: 1 })
      .onConflict((oc) => oc.column('chain_id').doUpdateSet({
        last_error: message, last_error_at: at, consecutive_errors: sql<number>`indexer_chains.consecutive_errors + 1`,
      })).execute(),

  applied: (tx: Executor, chainId: number, n: number) =>
    tx.insertInto('indexer_chains').values({ chain_id: chainId, logs_applied: BigInt(n) })
      .onConflict((oc) => oc.column('chain_id').doUpdateSet({ logs_applied: sql<bigint>`indexer_chains.logs_applied + ${n}` })).execute(),

  rows: (db: Executor) =>
    db.selectFrom('indexer_chains').selectAll()
      .select(sql<boolean>`coalesce(lease_until > now(), false)`.as('lease_live')).execute(),
};
