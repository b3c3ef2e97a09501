import type { Db } from '../../db/client.js';
import type { FinalityTag } from '../../config.js';
import type { ChainRuntime, ChainsService } from '../chains/service.js';
import type { FinalitySource } from './finality.js';
import { finalityOf } from './finality.js';
import { statsRepo } from './lease.js';

export type ChainStatus = {
  chain_id: number;
  /** Enabled, and an instance holds a live lease on it. */
  running: boolean;
  enabled: boolean;
  cursor: string | null;
  cursor_block_time: string | null;
  head: string | null;
  /** The block the indexer reads up to: min(head − confirmations, the finality tag's block). */
  target: string | null;
  lag: number | null;
  confirmations: number;
  finality: FinalityTag;
  /** depth | tag | depth_fallback (the RPC refused the finality tag). */
  finality_source: FinalitySource | null;
  lease_holder: string | null;
  lease_until: string | null;
  heartbeat_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  last_run_at: string | null;
  consecutive_errors: number;
  logs_applied: number;
};

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
const str = (v: bigint | null | undefined) => (v === null || v === undefined ? null : BigInt(v).toString());

type StatsRow = Awaited<ReturnType<typeof statsRepo.rows>>[number];
type CursorRow = { chain_id: number; last_block: bigint; last_block_time: Date | null };

function chainStatus(rt: ChainRuntime, r: StatsRow | undefined, c: CursorRow | undefined, devnet: boolean): ChainStatus {
  const cursor = c ? BigInt(c.last_block) : null;
  const target = r?.target === null || r?.target === undefined ? null : BigInt(r.target);
  const lag = cursor !== null && target !== null ? Number(target - cursor) : null;
  const enabled = r?.enabled ?? true;
  return {
    chain_id: rt.chainId,
    running: enabled && r?.lease_live === true,
    enabled,
    cursor: str(cursor),
    cursor_block_time: iso(c?.last_block_time),
    head: str(r?.head),
    target: str(target),
    lag: lag === null ? null : Math.max(lag, 0),
    confirmations: rt.confirmations,
    finality: finalityOf(rt, devnet),
    finality_source: (r?.finality_source ?? null) as FinalitySource | null,
    lease_holder: r?.lease_holder ?? null,
    lease_until: iso(r?.lease_until),
    heartbeat_at: iso(r?.heartbeat_at),
    last_error: r?.last_error ?? null,
    last_error_at: iso(r?.last_error_at),
    last_run_at: iso(r?.last_run_at),
    consecutive_errors: r?.consecutive_errors ?? 0,
    logs_applied: Number(r?.logs_applied ?? 0),
  };
}

/** From the database, so any instance (API or worker role) shows what the indexing instance does. */
export async function readStatus(db: Db, chains: ChainsService, devnet: boolean): Promise<{ running: boolean; chains: ChainStatus[] }> {
  const [rows, cursors] = await Promise.all([
    statsRepo.rows(db),
    db.selectFrom('chain_cursors').select(['chain_id', 'last_block', 'last_block_time']).execute(),
  ]);
  const list = chains.list().map((rt) => chainStatus(rt, rows.find((x) => x.chain_id === rt.chainId), cursors.find((x) => x.chain_id === rt.chainId), devnet));
  return { running: list.some((c) => c.running), chains: list };
}
