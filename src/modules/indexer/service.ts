import type { Hex, Log } from 'viem';
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import type { ChainsService } from '../chains/service.js';
import type { OrdersService } from '../orders/service.js';
import { INDEXED_EVENTS, isRangeError } from './events.js';
import { indexerRepo } from './repo.js';

/** What the refunds and settlements modules apply for their chain events, inside the indexer's transaction. */
export type IndexerHooks = {
  applyRefunded?: (tx: Tx, e: { chainId: number; orderOnchainId: Hex; refundOnchainId: Hex; to: Hex; amount: bigint; fromReserve: bigint; fromSubmitter: bigint; txHash: Hex; blockTime: Date }) => Promise<void>;
  applyReserveReleased?: (tx: Tx, e: { chainId: number; orderOnchainId: Hex; batchOnchainId: Hex; merchant: Hex; amount: bigint; txHash: Hex }) => Promise<void>;
  applyReserveReleaseFailed?: (tx: Tx, e: { chainId: number; orderOnchainId: Hex; batchOnchainId: Hex; merchant: Hex; amount: bigint; txHash: Hex }) => Promise<void>;
  applyBatchSettled?: (tx: Tx, e: { chainId: number; batchOnchainId: Hex; orderCount: bigint; totalReleased: bigint; txHash: Hex; blockTime: Date }) => Promise<void>;
  applyPayOrderCancelled?: (tx: Tx, e: { chainId: number; orderOnchainId: Hex; txHash: Hex; blockTime: Date }) => Promise<void>;
  applyRefundCancelled?: (tx: Tx, e: { chainId: number; refundOnchainId: Hex; txHash: Hex; blockTime: Date }) => Promise<void>;
  /** After a commit that applied logs (and so wrote outbox rows): lets the webhook deliverer start at once. */
  afterCommit?: () => void;
};

export type ChainStatus = {
  chain_id: number;
  running: boolean;
  cursor: string | null;
  head: string | null;
  lag: number | null;
  confirmations: number;
  last_error: string | null;
  last_error_at: string | null;
  last_run_at: string | null;
  consecutive_errors: number;
  logs_applied: number;
};

type DecodedLog = Log<bigint, number, false, (typeof INDEXED_EVENTS)[number], true>;

const MAX_RANGE = 2_000n;
const MAX_BACKOFF_MS = 30_000;

export type IndexerDeps = {
  db: Db;
  config: Config;
  chains: ChainsService;
  orders: OrdersService;
  hooks: () => IndexerHooks;
  logger: Logger;
  metrics: Metrics;
  /** Tests only: runs after logs are read and applied, before the transaction commits. */
  faults?: { beforeCommit?: (chainId: number) => void };
};

/**
 * Per chain: a cursor in the database; logs of the router read from cursor+1 up to head − confirmations
 * in bounded ranges; each log applied once (unique chain, tx hash, log index) in the same transaction
 * that moves the cursor and writes the outbox rows (DESIGN §6). A crash anywhere rolls the whole range
 * back and the next tick reads it again; nothing is lost or applied twice. Several instances may run:
 * a transaction-scoped advisory lock plus a compare-and-set on the cursor lets exactly one apply a range.
 */
export function createIndexer(deps: IndexerDeps) {
  const { db, config, chains, orders, logger, metrics } = deps;
  const state = new Map<number, { running: boolean; head: bigint | null; cursor: bigint | null; lastError: string | null; lastErrorAt: Date | null; lastRunAt: Date | null; errors: number; applied: number; range: bigint; timer?: NodeJS.Timeout | undefined; stopped?: Promise<void> | undefined; wake?: () => void }>();

  const st = (chainId: number) => {
    let s = state.get(chainId);
    if (!s) {
      s = { running: false, head: null, cursor: null, lastError: null, lastErrorAt: null, lastRunAt: null, errors: 0, applied: 0, range: MAX_RANGE };
      state.set(chainId, s);
    }
    return s;
  };

  async function fetchLogs(chainId: number, from: bigint, to: bigint): Promise<{ logs: DecodedLog[]; to: bigint }> {
    const rt = chains.get(chainId);
    const s = st(chainId);
    for (;;) {
      try {
        const logs = (await rt.publicClient.getLogs({ address: rt.router, events: INDEXED_EVENTS, fromBlock: from, toBlock: to, strict: true })) as unknown as DecodedLog[];
        if (s.range < MAX_RANGE) s.range = s.range * 2n > MAX_RANGE ? MAX_RANGE : s.range * 2n; // grow back slowly
        return { logs, to };
      } catch (err) {
        if (!isRangeError(err) || to === from) throw err;
        s.range = (to - from + 1n) / 2n > 0n ? (to - from + 1n) / 2n : 1n;
        to = from + s.range - 1n;
      }
    }
  }

  async function blockTimes(chainId: number, logs: DecodedLog[]) {
    const rt = chains.get(chainId);
    const times = new Map<bigint, Date>();
    for (const n of new Set(logs.map((l) => l.blockNumber))) {
      const block = await rt.publicClient.getBlock({ blockNumber: n });
      times.set(n, new Date(Number(block.timestamp) * 1000));
    }
    return times;
  }

  /** Blocks we applied logs from must keep their hash: a change below the depth is an alert, never a silent double. */
  async function checkReorg(chainId: number, cursor: bigint) {
    const rt = chains.get(chainId);
    const window = BigInt(Math.max(rt.confirmations, 1) * 4);
    for (const b of (await indexerRepo.recentBlocks(db, chainId, cursor - window)).slice(0, 3)) {
      const block = await rt.publicClient.getBlock({ blockNumber: b.block_number }).catch(() => null);
      if (block && block.hash !== b.block_hash) {
        const key = `${b.block_number}:${b.block_hash}`;
        if (!(await indexerRepo.alertExists(db, chainId, 'reorg_below_depth', key))) {
          await indexerRepo.alert(db, chainId, 'reorg_below_depth', { key, block_number: b.block_number, applied_hash: b.block_hash, current_hash: block.hash });
          logger.error({ chain_id: chainId, block: b.block_number.toString() }, 'ALERT: a block the indexer applied was reorganised below the confirmation depth');
        }
      }
    }
  }

  async function applyLog(tx: Tx, chainId: number, log: DecodedLog, times: Map<bigint, Date>) {
    const base = { chainId, txHash: log.transactionHash };
    const blockTime = times.get(log.blockNumber) ?? new Date();
    const hooks = deps.hooks();
    switch (log.eventName) {
      case 'OrderPaid':
        return orders.applyPaid(tx, { ...base, ...log.args, blockNumber: log.blockNumber, blockTime });
      case 'Refunded':
        if (!hooks.applyRefunded) break;
        return hooks.applyRefunded(tx, { ...base, orderOnchainId: log.args.orderId, refundOnchainId: log.args.refundId, to: log.args.to, amount: log.args.amount, fromReserve: log.args.fromReserve, fromSubmitter: log.args.fromSubmitter, blockTime });
      case 'ReserveReleased':
        if (!hooks.applyReserveReleased) break;
        return hooks.applyReserveReleased(tx, { ...base, orderOnchainId: log.args.orderId, batchOnchainId: log.args.batchId, merchant: log.args.merchant, amount: log.args.amount });
      case 'ReserveReleaseFailed':
        if (!hooks.applyReserveReleaseFailed) break;
        return hooks.applyReserveReleaseFailed(tx, { ...base, orderOnchainId: log.args.orderId, batchOnchainId: log.args.batchId, merchant: log.args.merchant, amount: log.args.amount });
      case 'BatchSettled':
        if (!hooks.applyBatchSettled) break;
        return hooks.applyBatchSettled(tx, { ...base, batchOnchainId: log.args.batchId, orderCount: log.args.orderCount, totalReleased: log.args.totalReleased, blockTime });
      case 'PayOrderCancelled':
        if (!hooks.applyPayOrderCancelled) break;
        return hooks.applyPayOrderCancelled(tx, { ...base, orderOnchainId: log.args.orderId, blockTime });
      case 'RefundCancelled':
        if (!hooks.applyRefundCancelled) break;
        return hooks.applyRefundCancelled(tx, { ...base, refundOnchainId: log.args.refundId, blockTime });
    }
    await indexerRepo.alert(tx, chainId, 'unhandled_event', { event: log.eventName, tx_hash: log.transactionHash, log_index: log.logIndex });
  }

  const onchainIdOf = (log: DecodedLog): string | null =>
    'orderId' in log.args ? (log.args.orderId as string) : 'batchId' in log.args ? (log.args.batchId as string)
      : 'refundId' in log.args ? (log.args.refundId as string) : null;

  /** One step: read and apply at most one range. Returns whether the chain is caught up. */
  async function tick(chainId: number): Promise<{ applied: number; caughtUp: boolean }> {
    const rt = chains.get(chainId);
    const s = st(chainId);
    const head = await rt.publicClient.getBlockNumber({ cacheTime: 0 });
    s.head = head;
    const safe = head - BigInt(rt.confirmations);
    let cursor = await indexerRepo.cursor(db, chainId);
    if (cursor === null) {
      // From the router's deployment block when known; else devnet from genesis, a real network from where
      // the service first ran (orders only exist from then).
      const start = rt.startBlock !== undefined ? rt.startBlock - 1n : config.env === 'devnet' ? -1n : safe;
      await indexerRepo.initCursor(db, chainId, start);
      cursor = (await indexerRepo.cursor(db, chainId))!;
    }
    s.cursor = cursor;
    await checkReorg(chainId, cursor);
    if (safe <= cursor) return { applied: 0, caughtUp: true };
    const from = cursor + 1n;
    const wanted = from + s.range - 1n < safe ? from + s.range - 1n : safe;
    const { logs, to } = await fetchLogs(chainId, from, wanted);
    const times = await blockTimes(chainId, logs.filter((l) => l.eventName !== 'ReserveReleased' && l.eventName !== 'ReserveReleaseFailed'));
    const applied = await db.transaction().execute(async (tx) => {
      if (!(await indexerRepo.tryLock(tx, chainId))) return -1; // another instance is applying this chain
      if ((await indexerRepo.cursorForUpdate(tx, chainId)) !== cursor) return -1; // it already moved on
      let n = 0;
      for (const log of logs) {
        const fresh = await indexerRepo.recordLog(tx, {
          chain_id: chainId, tx_hash: log.transactionHash, log_index: log.logIndex, block_number: log.blockNumber,
          block_hash: log.blockHash, event_name: log.eventName, onchain_id: onchainIdOf(log),
        });
        if (!fresh) continue;
        await applyLog(tx, chainId, log, times);
        metrics.indexedLogs.inc({ chain_id: String(chainId), event: log.eventName });
        n++;
      }
      await indexerRepo.setCursor(tx, chainId, to);
      deps.faults?.beforeCommit?.(chainId);
      return n;
    });
    if (applied >= 0) {
      s.cursor = to;
      s.applied += applied;
    }
    if (applied > 0) deps.hooks().afterCommit?.();
    return { applied: Math.max(applied, 0), caughtUp: to >= safe };
  }

  function recordError(chainId: number, err: unknown) {
    const s = st(chainId);
    s.errors++;
    // viem's shortMessage alone is often "RPC Request failed."; its details carry the provider's reason
    // ("Too Many Requests", "header not found"), which is what an operator needs. Never the URL (it may hold a key).
    const e = err as { shortMessage?: string; message?: string; details?: string };
    const reason = e?.shortMessage ?? e?.message ?? String(err);
    const details = e?.shortMessage && e.details && !reason.includes(e.details) ? `: ${e.details}` : '';
    s.lastError = `${reason.split('\n')[0]}${details.split('\n')[0]}`.slice(0, 300);
    s.lastErrorAt = new Date();
    logger.warn({ chain_id: chainId, err: s.lastError, consecutive: s.errors }, 'indexer tick failed');
  }

  function loop(chainId: number) {
    const s = st(chainId);
    const pollMs = config.env === 'devnet' ? 500 : 2_000;
    let resolveStopped!: () => void;
    s.stopped = new Promise((r) => (resolveStopped = r));
    s.wake = () => resolveStopped(); // stop() while waiting between ticks: nothing in flight
    const step = async () => {
      s.timer = undefined;
      if (!s.running) return resolveStopped();
      let delay = pollMs;
      try {
        const r = await tick(chainId);
        s.lastRunAt = new Date();
        s.errors = 0;
        s.lastError = null;
        if (!r.caughtUp) delay = 0;
      } catch (err) {
        recordError(chainId, err);
        delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(s.errors, 6));
      }
      if (!s.running) return resolveStopped();
      s.timer = setTimeout(step, delay);
    };
    void step();
  }

  return {
    tick,

    /** Until caught up (tests and operators): returns the number of logs applied. */
    async runOnce(chainId: number, maxSteps = 1000): Promise<number> {
      let total = 0;
      for (let i = 0; i < maxSteps; i++) {
        const r = await tick(chainId);
        total += r.applied;
        if (r.caughtUp) break;
      }
      return total;
    },

    start(chainIds: number[] = chains.list().map((c) => c.chainId)) {
      for (const id of chainIds) {
        const s = st(id);
        if (s.running) continue;
        s.running = true;
        loop(id);
      }
    },

    async stop() {
      const waits: Promise<void>[] = [];
      for (const s of state.values()) {
        if (!s.running) continue;
        s.running = false;
        if (s.stopped) waits.push(s.stopped);
        if (s.timer) {
          clearTimeout(s.timer);
          s.wake?.();
        }
      }
      // A tick in flight finishes its transaction (or rolls back) before stop resolves.
      await Promise.race([Promise.all(waits), new Promise((r) => setTimeout(r, 5_000).unref())]);
      for (const s of state.values()) s.stopped = undefined;
    },

    status(): { running: boolean; chains: ChainStatus[] } {
      const list = chains.list().map((rt) => {
        const s = st(rt.chainId);
        const lag = s.head !== null && s.cursor !== null ? Number(s.head - BigInt(rt.confirmations) - s.cursor) : null;
        return {
          chain_id: rt.chainId,
          running: s.running,
          cursor: s.cursor?.toString() ?? null,
          head: s.head?.toString() ?? null,
          lag: lag === null ? null : Math.max(lag, 0),
          confirmations: rt.confirmations,
          last_error: s.lastError,
          last_error_at: s.lastErrorAt?.toISOString() ?? null,
          last_run_at: s.lastRunAt?.toISOString() ?? null,
          consecutive_errors: s.errors,
          logs_applied: s.applied,
        };
      });
      return { running: list.some((c) => c.running), chains: list };
    },
  };
}

export type Indexer = ReturnType<typeof createIndexer>;
