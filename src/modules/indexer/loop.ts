import type { Config } from '../../config.js';
import type { Clock } from '../../lib/clock.js';
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

type LoopState = { running: boolean; timer?: NodeJS.Timeout | undefined; poked?: boolean; stopped?: Promise<void>; done?: () => void; kick?: () => void; nextTickAt: number; errors: number; claimedAt: number };
type LoopDeps = { db: Db; config: Config; chains: ChainsService; logger: Logger; clock: Clock; tick: (chainId: number, holder: string) => Promise<{ caughtUp: boolean }>; pollMs?: number };
type LoopCtx = LoopDeps & { me: string; pollMs: number };

// Loop timing (next tick, backoff, heartbeats) is timer arithmetic on the process clock; the status rows
// written (statsRepo) carry the injected service clock.
const backoff = (s: LoopState) => Date.now() + Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(s.errors, 6));

async function recordError(ctx: LoopCtx, chainId: number, s: LoopState, err: unknown) {
  s.errors++;
  const message = describeError(err);
  ctx.logger.warn({ chain_id: chainId, err: message, consecutive: s.errors }, 'indexer tick failed');
  await statsRepo.failed(ctx.db, chainId, message, ctx.clock.now()).catch(() => {}); // the database may be what failed
}

/** Claims or renews the lease (another instance's dead local lease is reaped); true while this instance holds it. */
async function holdLease(ctx: LoopCtx, chainId: number): Promise<boolean> {
  if (await leaseRepo.claim(ctx.db, chainId, ctx.me, LEASE_MS)) return true;
  await leaseRepo.reapDeadLocal(ctx.db, chainId);
  return leaseRepo.claim(ctx.db, chainId, ctx.me, LEASE_MS);
}

/** One wake-up: hold the lease (only while the chain is enabled); tick when the next tick is due. */
async function wake(ctx: LoopCtx, chainId: number, s: LoopState) {
  let mine: boolean;
  try {
    mine = await holdLease(ctx, chainId);
    s.claimedAt = Date.now();
  } catch (err) {
    await recordError(ctx, chainId, s, err);
    s.nextTickAt = backoff(s);
    return;
  }
  if (!mine || Date.now() < s.nextTickAt) return;
  try {
    const r = await ctx.tick(chainId, ctx.me);
    s.errors = 0;
    s.nextTickAt = Date.now() + (r.caughtUp ? ctx.pollMs : 0);
  } catch (err) {
    await recordError(ctx, chainId, s, err);
    s.nextTickAt = backoff(s);
  }
}

/** Runs a chain's loop until s.running turns false; `kick` wakes it at once (unless a wake-up is in flight). */
function loop(ctx: LoopCtx, chainId: number, s: LoopState) {
  s.stopped = new Promise((resolve) => (s.done = resolve));
  const step = async () => {
    s.timer = undefined;
    if (!s.running) return s.done?.();
    s.poked = false;
    await wake(ctx, chainId, s);
    if (!s.running) return s.done?.();
    // A head that came during this wake-up may be past what its tick read: tick again now, not at the next poll.
    if (s.poked && s.errors === 0) s.nextTickAt = Math.min(s.nextTickAt, Date.now());
    s.timer = setTimeout(step, Math.max(0, Math.min(s.nextTickAt - Date.now(), HEARTBEAT_MS)));
  };
  s.kick = () => {
    if (!s.timer) return; // a wake-up is in flight
    clearTimeout(s.timer);
    void step();
  };
  void step();
}

/** Stops every loop: a tick in flight finishes its transaction (or rolls back) first; then the leases are given up. */
async function stopAll(ctx: LoopCtx, state: Map<number, LoopState>) {
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
  await Promise.race([Promise.all(waits), new Promise((r) => setTimeout(r, 5_000).unref())]);
  for (const id of state.keys()) await leaseRepo.release(ctx.db, id, ctx.me).catch(() => {});
}

/**
 * This process's indexing loops, one per chain. Each wake-up: claim or renew the lease (only while the
 * chain is enabled); the holder ticks when its next tick is due (poll interval, or error backoff).
 */
export function createLoops(deps: LoopDeps) {
  const ctx: LoopCtx = { ...deps, me: newInstanceId(), pollMs: deps.pollMs ?? (deps.config.env === 'devnet' ? 500 : 2_000) };
  const state = new Map<number, LoopState>();

  function start(chainIds: number[] = deps.chains.list().map((c) => c.chainId)) {
    for (const id of chainIds) {
      const s = state.get(id) ?? { running: false, nextTickAt: 0, errors: 0, claimedAt: 0 };
      state.set(id, s);
      if (s.running) continue;
      s.running = true;
      loop(ctx, id, s);
    }
  }

  return {
    instanceId: ctx.me,
    start,
    /** Starts (or wakes) the loops and waits until each has asked for its lease once more (bounded). */
    async startAndClaim() {
      const since = Date.now();
      start();
      for (const s of state.values()) s.kick?.();
      const until = since + 3_000;
      while ([...state.values()].some((s) => s.running && s.claimedAt < since) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    },
    /**
     * A new head was seen (head-watch.ts): tick now rather than at the next poll. Not while the loop backs off after
     * errors (the head does not make a failing RPC or database work again). A wake-up in flight is left alone, and
     * the loop ticks again as soon as it ends (its tick may have read the head before this one).
     */
    poke(chainId: number) {
      const s = state.get(chainId);
      if (!s?.running || s.errors > 0) return;
      s.nextTickAt = Math.min(s.nextTickAt, Date.now());
      s.poked = true;
      s.kick?.();
    },
    stop: () => stopAll(ctx, state),
  };
}
