import type { Services } from './services.js';
import { describeError } from './lib/redact-urls.js';
import { indexerRepo } from './modules/indexer/repo.js';

/**
 * Background workers of this process (DESIGN §2: --role worker|all). Each worker coordinates with other
 * instances only through the database. Returns a function that stops them all.
 */
export type Worker = { name: string; stop(): Promise<void> };

export async function startWorkers(services: Services): Promise<() => Promise<void>> {
  const workers: Worker[] = [];
  const every = (name: string, ms: number, fn: () => Promise<unknown>): Worker => {
    let running = true;
    let timer: NodeJS.Timeout | undefined;
    let current: Promise<unknown> = Promise.resolve();
    const tick = async () => {
      if (!running) return;
      current = fn().catch((err) => services.logger.error({ err, worker: name }, 'worker tick failed'));
      await current;
      if (running) timer = setTimeout(tick, ms);
    };
    timer = setTimeout(tick, 0);
    return { name, stop: async () => { running = false; clearTimeout(timer); await current; } };
  };
  // Retention, hourly: expired idempotency keys, webhook attempts past WEBHOOK_ATTEMPT_RETENTION_DAYS (bounded
  // batches), and the week partitions of events, deliveries, attempts and request logs (created ahead, dropped
  // past EVENT_RETENTION_DAYS / REQUEST_LOG_RETENTION_DAYS; one instance at a time, modules/retention).
  workers.push(every('retention', 60 * 60 * 1000, async () => {
    await services.idempotency.purgeExpired().catch((err) =>
      services.logger.warn({ err: describeError(err) }, 'idempotency purge failed'));
    await services.retention.runOnce().catch((err) =>
      services.logger.warn({ err: describeError(err) }, 'partition retention pass failed'));
    await services.webhooks.pruneAttempts();
  }));
  // Expiry sweeper: pending orders (and their sessions) whose deadline the indexed chain has passed,
  // authorizations whose capture window it has passed (voided), pending invitations past expiry.
  workers.push(every('expiry-sweeper', 5_000, async () => {
    for (const rt of services.chains.list()) {
      await sweepExpiredOrders(services, rt.chainId).catch((err) =>
        services.logger.warn({ chain_id: rt.chainId, err: describeError(err) }, 'order expiry pass failed'));
      await sweepExpiredAuthorizations(services, rt.chainId).catch((err) =>
        services.logger.warn({ chain_id: rt.chainId, err: describeError(err) }, 'authorization expiry pass failed'));
      await sweepSubscriptions(services, rt.chainId).catch((err) =>
        services.logger.warn({ chain_id: rt.chainId, err: describeError(err) }, 'subscription charge pass failed'));
    }
    await services.invitations.expireDue();
  }));
  // The chain indexer: one loop per configured chain; it indexes while the chain is enabled (/_/indexer/start|stop, in the database) and it holds the lease.
  services.indexer.start();
  workers.push({ name: 'indexer', stop: () => services.indexer.stop() });
  // Refunds: fail those past their deadline (chain clock), hand those the reserve covers to the operator sender.
  workers.push(every('refunds', 3_000, () => services.refunds.runOnce()));
  // The operator sender: one per (chain, operator address) across instances (database lease); sends what
  // refunds, settlements and order cancellations enqueued, and follows each transaction to its outcome.
  services.operatorTxs.start();
  workers.push({ name: 'operator-sender', stop: () => services.operatorTxs.stop() });
  // Deposits pass: sweeps that failed (after their back-off), were refused by a limit of the day, or waited for a
  // deposit's own deadline, tried again on the chain clock (modules/deposits/retry-pass.ts).
  workers.push(every('deposit-sweeps', 60_000, async () => {
    for (const rt of services.chains.list()) {
      await services.deposits.retryDue(rt.chainId).catch((err) =>
        services.logger.warn({ chain_id: rt.chainId, err: describeError(err) }, 'deposit sweep pass failed'));
    }
  }));
  // Settlement: release reserves whose on-chain hold (OrderPaid.releaseAfter) has passed, in batches of up to 100.
  workers.push(every('settlement', 60_000, () => services.settlements.runOnce()));
  // Balance closings: sums of payments and refunds before the indexed chain time's minute, so a balance read sums
  // only the last minute or two live, whatever the payment rate (docs/balances.md).
  workers.push(every('balance-closings', 15_000, () => services.balance.closeAll()));
  // Order counts: the deltas the trigger on orders appends, folded into each platform's counts and gross per day and
  // minute, so the summary adds only the last few seconds' deltas to them (migration 039).
  workers.push(every('order-counts', 5_000, () => services.orders.foldCounts()));
  // Webhooks run their own loop: it must not wait for a slow endpoint's attempt before claiming more.
  // The indexer pokes it after each commit that wrote outbox rows (wired in services.ts): a confirmation's
  // webhook does not wait for the next poll (bench: −0.5 s at p50).
  const deliverer = services.deliverer;
  deliverer.start(1_000);
  workers.push({ name: 'webhook-deliverer', stop: () => deliverer.stop() });
  return async () => {
    await Promise.all(workers.map((w) => w.stop()));
  };
}

/**
 * Expires the chain's pending orders against the timestamp of the indexer's cursor block: the chain time
 * up to which every router log has been applied at confirmation depth. Never against the wall clock.
 */
export async function sweepExpiredOrders(services: Services, chainId: number) {
  const until = await indexerRepo.indexedUntil(services.database.db, chainId);
  if (!until) return;
  while ((await services.orders.expireDue(chainId, until.time)) > 0);
}

/**
 * Voids the chain's authorizations whose capture_before the indexed chain time has reached (no capture can land
 * any more): voidAuthorization queued once per order. Never against the wall clock.
 */
export async function sweepExpiredAuthorizations(services: Services, chainId: number) {
  const until = await indexerRepo.indexedUntil(services.database.db, chainId);
  if (!until) return;
  while ((await services.authorizations.voidExpired(chainId, until.time)) > 0);
}

/**
 * Subscriptions on the indexed chain clock: charges (and dunning retries) whose time the indexed chain has reached
 * are queued, and unused links past expires_at expire. Never against the wall clock.
 */
export async function sweepSubscriptions(services: Services, chainId: number) {
  const until = await indexerRepo.indexedUntil(services.database.db, chainId);
  if (!until) return;
  while ((await services.subscriptions.expireLinks(chainId, until.time)) > 0);
  while ((await services.subscriptions.chargeDue(chainId, until.time)) > 0);
}
