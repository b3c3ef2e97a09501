import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { describeError } from '../../lib/redact-urls.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import { leaseRepo, newInstanceId, statsRepo } from './lease.js';

/** A lease outlives a few missed heartbeats; a dead instance's chains are taken over after this. */
export const LEASE_MS = 15_000;
/** Every loop wakes at least this often: renews its lease, or (stopped, not the holder) polls for its turn. */
export const HEARTBEAT_MS = 2_000;
const MAX_BACKOFF_MS = 30_000;

type LoopState = { running: boolean; timer?: NodeJS.Timeout | undefined; stopped?: Promise<void>; done?: () => void; kick?: () => void; nextTickAt: number; errors: number; claimedAt: number };
type LoopDeps = { db: Db; config: Config; chains: ChainsService; logger: Logger; tick: (chainId: number, holder: string) => Promise<{ caughtUp: boolean }> };

/**
 * This process's indexing loops, one per chain. Each wake-up: claim or renew the lease (only while the
 * chain is enabled); the holder ticks when its next tick is due (poll interval, or error backoff).
 */
export function createLoops(deps: LoopDeps) {
  const { db, config, chains, logger } = deps;
  const me = newInstanceId();
  const pollMs = config.env === 'devnet' ? 500 : 2_000;
  const state = new Map<number, LoopState>();

  async function recordError(chainId: number, s: LoopState, err: unknown) {
    s.errors++;
    const message = describeError(err);
    logger.warn({ chain_id: chainId, err: message, consecutive: s.errors }, 'indexer tick failed');
    await statsRepo.failed(db, chainId, message).catch(() => {}); // the database may be what failed
  }

  async function wake(chainId: number, s: LoopState) {
    let mine: boolean;
    try {
      mine = await leaseRepo.claim(db, chainId, me, LEASE_MS);
      if (!mine) {
        await leaseRepo.reapDeadLocal(db, chainId);
        mine = await leaseRepo.claim(db, chainId, me, LEASE_MS);
      }
      s.claimedAt = Date.now();
    } catch (err) {
      await recordError(chainId, s, err);
      s.nextTickAt = Date.now() + Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(s.errors, 6));
      return;
    }
    if (!mine || Date.now() < s.nextTickAt) return;
    try {
      const r = await deps.tick(chainId, me);
      s.errors = 0;
      s.nextTickAt = Date.now() + (r.caughtUp ? pollMs : 0);
    } catch (err) {
      await recordError(chainId, s, err);
      s.nextTickAt = Date.now() + Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(s.errors, 6));
    }
  }

  function loop(chainId: number, s: LoopState) {
    s.stopped = new Promise((resolve) => (s.done = resolve));
    const step = async () => {
      s.timer = undefined;
      if (!s.running) return s.done?.();
      await wake(chainId, s);
      if (!s.running) return s.done?.();
      s.timer = setTimeout(step, Math.max(0, Math.min(s.nextTickAt - Date.now(), HEARTBEAT_MS)));
    };
    s.kick = () => {
      if (!s.timer) return; // a wake-up is in flight
      clearTimeout(s.timer);
      void step();
    };
    void step();
  }

  function start(chainIds: number[] = chains.list().map((c) => c.chainId)) {
    for (const id of chainIds) {
      const s = state.get(id) ?? { running: false, nextTickAt: 0, errors: 0, claimedAt: 0 };
      state.set(id, s);
      if (s.running) continue;
      s.running = true;
      loop(id, s);
    }
  }

  return {
    instanceId: me,
    start,

    /** Starts (or wakes) the loops and waits until each has asked for its lease once more (bounded). */
    async startAndClaim() {
      const since = Date.now();
      start();
      for (const s of state.values()) s.kick?.();
      const until = since + 3_000;
      while ([...state.values()].some((s) => s.running && s.claimedAt < since) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    },

    async stop() {
      const waits: Promise<void>[] = [];
      for (const s of state.values()) {
        if (!s.running) continue;
        s.running = false;
        if (s.stopped) waits.push(s.stopped);
        if (s.timer) {
          clearTimeout(s.timer);
          s.timer = undefined;
          s.done?.();
        }
      }
      // A tick in flight finishes its transaction (or rolls back) before stop resolves.
      await Promise.race([Promise.all(waits), new Promise((r) => setTimeout(r, 5_000).unref())]);
      for (const id of state.keys()) await leaseRepo.release(db, id, me).catch(() => {});
    },
  };
}
