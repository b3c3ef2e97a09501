import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { Logger } from './lib/logger.js';
import { createMetrics, type Metrics } from './lib/metrics.js';
import { createSealer } from './lib/seal.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createAuth } from './modules/accounts/auth.js';
import { createChainsService } from './modules/chains/service.js';
import { createPublicSessionCache, PUBLIC_SESSION_CHANNEL } from './modules/checkout/public-cache.js';
import { cacheFollowsOrders, createCheckoutService, sessionsFollowOrders } from './modules/checkout/index.js';
import { createInvitationsService } from './modules/invitations/index.js';
import { createMerchantsService } from './modules/merchants/index.js';
import { createOrdersService, createOrderTransitions } from './modules/orders/index.js';
import { createDepositsService } from './modules/deposits/index.js';
import { createIndexer, type ChainEventHandlers } from './modules/indexer/service.js';
import { indexedUntil } from './modules/indexer/repo.js';
import { createHealthService } from './modules/health/service.js';
import { createIdempotencyService } from './modules/idempotency/service.js';
import { createKeysService } from './modules/keys/index.js';
import { createPlatformsService } from './modules/platforms/index.js';
import { createEventsService } from './modules/events/service.js';
import { createRetentionService } from './modules/retention/index.js';
import { createTestHelpers } from './modules/test-helpers/index.js';
import { createRequestLogs } from './modules/request-logs/index.js';
import { createTimelines } from './modules/timelines/index.js';
import { createWebhooksService } from './modules/webhooks/service.js';
import { createWebhookSecrets } from './modules/webhooks/secrets.js';
import { createWebhookDeliverer } from './modules/webhooks/deliver.js';
import { createRefundsService } from './modules/refunds/index.js';
import { createRouterClient } from './modules/settlements/router-client.js';
import { createSettlementsService } from './modules/settlements/index.js';
import { createOperatorTxs } from './modules/operator-txs/service.js';
import { createRelay, createTokenDomains } from './modules/relay/index.js';
import { createX402 } from './modules/x402/index.js';
import { applyPayOrderCancelledWith, orderCancelOutcomeHandler } from './modules/order-cancellation/apply.js';
import { requestOrderCancel } from './modules/order-cancellation/request.js';
import { createBalanceService } from './modules/balance/index.js';
import { createAuthorizationsService } from './modules/authorizations/index.js';
import { createExportsService } from './modules/exports/index.js';
import { registerOpsGauges } from './modules/ops-metrics/register.js';
import { createSubscriptionsService, subscriptionsFollowOrders } from './modules/subscriptions/index.js';

export type ServiceDeps = {
  config: Config;
  database: Database;
  logger: Logger;
  /** BETTER_AUTH_SECRET (or the devnet's): the current secret, then any previous ones, comma-separated. */
  authSecret: string;
  metrics?: Metrics;
  /** Wall-clock time (lib/clock.ts); tests pass a manual clock and move it. */
  clock?: Clock;
};

/** Services are built once and injected into the app (routes reach them through c.get('services')). */
export function createServices(deps: ServiceDeps) {
  const { config, database, logger } = deps;
  const db = database.db;
  const clock = deps.clock ?? systemClock;
  const keys = createKeysService(db, clock);
  const platforms = createPlatformsService(db, config, keys);
  const chains = createChainsService(config);
  const merchants = createMerchantsService(db, platforms);
  const invitations = createInvitationsService({ db, config, platforms, merchants, chains, clock });
  const publicSessions = createPublicSessionCache({ now: clock.ms });
  // Instances that answer the public read hear about every change to it (migration 008), whoever made it.
  if (config.role !== 'worker') {
    let state: 'starting' | 'up' | 'down' = 'starting';
    database.listen(PUBLIC_SESSION_CHANNEL, {
      onNotify: publicSessions.changed,
      onState: (up) => {
        publicSessions.setNotified(up);
        if (!up && state !== 'down') logger.warn({ component: 'public-cache' }, 'no LISTEN connection: public session reads are cached for 1 s until there is one');
        if (up && state === 'down') logger.info({ component: 'public-cache' }, 'LISTEN connection back');
        state = up ? 'up' : 'down';
      },
    });
  }
  // Orders publish each transition inside its transaction; the public read's cache and checkout's sessions follow it.
  const orderTransitions = createOrderTransitions();
  orderTransitions.subscribe(cacheFollowsOrders(publicSessions));
  orderTransitions.subscribe(sessionsFollowOrders);
  const orders = createOrdersService({ db, config, chains, clock, transitions: orderTransitions });
  const router = createRouterClient(chains);
  const refunds = createRefundsService({ db, config, chains, orders, router, logger, clock });
  const settlements = createSettlementsService({ db, config, chains, router, logger, clock });
  // One operator sender (outbox): refunds, settlements and order cancellations enqueue; each owner handles its outcomes.
  const operatorTxs = createOperatorTxs({ db: database.workerDb, config, chains, logger });
  operatorTxs.register('refund', refunds.outcomeHandlers.refund);
  operatorTxs.register('refund_cancel', refunds.outcomeHandlers.refund_cancel);
  operatorTxs.register('settlement', settlements.onOutcome);
  operatorTxs.register('order_cancel', orderCancelOutcomeHandler(logger, clock));
  // Gasless payment: the relayer's transactions go through the same outbox (key 'relayer', purpose 'relay').
  const tokenDomains = createTokenDomains();
  const relay = createRelay({ db, config, chains, tokenDomains, wake: () => operatorTxs.poke('relayer'), logger });
  // Charge later: capture and void requests go out through the same outbox (purposes 'capture', 'authorization_void').
  const authorizations = createAuthorizationsService({ db, chains, clock, logger, wake: () => operatorTxs.poke('operator') });
  operatorTxs.register('capture', authorizations.outcomeHandlers.capture);
  operatorTxs.register('authorization_void', authorizations.outcomeHandlers.authorization_void);
  // Subscriptions: charges and operator revocations through the same outbox; subscriptions follow their charges' orders.
  const subscriptions = createSubscriptionsService({ db, config, chains, clock, logger, orders, tokenDomains, wake: () => operatorTxs.poke('operator') });
  operatorTxs.register('subscription_charge', subscriptions.outcomeHandlers.subscription_charge);
  operatorTxs.register('subscription_revoke', subscriptions.outcomeHandlers.subscription_revoke);
  orderTransitions.subscribe(subscriptionsFollowOrders(clock));
  const deposits = createDepositsService({ db, config, chains, logger, clock, changing: publicSessions.changing });
  // Deposit addresses: the relayer's sweeps go through the same outbox (purpose 'deposit_sweep').
  operatorTxs.register('deposit_sweep', deposits.onSweepOutcome);
  orderTransitions.subscribe(deposits.followOrders);
  const checkout = createCheckoutService({ db, config, chains, orders, gaslessOf: relay.gasless, cache: publicSessions });
  // x402 payments are relays (same budget, cap, bans and outbox); each follows its relay's outcome.
  const x402 = createX402({ db, config, chains, tokenDomains, wake: () => operatorTxs.poke('relayer'), logger, checkout, settleWaitMs: config.x402SettleWaitMs, pollMs: 200 });
  operatorTxs.register('relay', x402.outcomeHandler(relay.onOutcome));
  operatorTxs.register('x402_attribute', x402.frontRunOutcomeHandlers.x402_attribute);
  operatorTxs.register('x402_return', x402.frontRunOutcomeHandlers.x402_return);
  const orderCancellation = { request: (id: string, reason: string) => requestOrderCancel({ db, router, logger, clock }, id, reason) };
  const metrics = deps.metrics ?? createMetrics();
  registerOpsGauges(metrics.registry, db);
  // Every router event reaches the module that owns it the same way: one table, fixed here (indexer/handlers.ts).
  const chainEvents: ChainEventHandlers = {
    OrderPaid: (tx, events) => orders.applyPaidMany(tx, events),
    OrderAuthorized: (tx, e) => orders.applyAuthorized(tx, e),
    OrderCaptured: (tx, e) => orders.applyCaptured(tx, e),
    AuthorizationVoided: (tx, e) => orders.applyAuthorizationEnded(tx, e),
    AuthorizationReclaimed: (tx, e) => orders.applyAuthorizationEnded(tx, e),
    Refunded: (tx, e) => refunds.applyRefunded(tx, e),
    ReserveReleased: (tx, e) => settlements.applyReserveReleased(tx, e),
    ReserveReleaseFailed: (tx, e) => settlements.applyReserveReleaseFailed(tx, e),
    BatchSettled: (tx, e) => settlements.applyBatchSettled(tx, e),
    PayOrderCancelled: applyPayOrderCancelledWith(orders, logger),
    RefundCancelled: (tx, e) => refunds.applyRefundCancelled(tx, e),
    Charged: (tx, e) => subscriptions.applyCharged(tx, e),
    PermissionRevoked: (tx, e) => subscriptions.applyPermissionRevoked(tx, e),
  };
  // Webhook secrets at rest: WEBHOOK_SEAL_KEYS, else a key derived from the auth secret (modules/webhooks/secrets.ts).
  // BETTER_AUTH_SECRET may list the current secret and previous ones (rotation, docs/security.md).
  const authSecrets = deps.authSecret.split(',').map((s) => s.trim());
  const webhookSecrets = createWebhookSecrets(config.webhookSealKeys.length ? config.webhookSealKeys : authSecrets);
  const balance = createBalanceService({ db, serviceTreasury: () => config.serviceTreasury, clock });
  const exportsService = createExportsService({ db, balance });
  // Built here, started by the workers: the indexer pokes it after a commit that wrote outbox rows.
  const deliverer = createWebhookDeliverer({ db, config, logger, secrets: webhookSecrets, metrics, clock },
    { disableAfterMs: config.webhookDisableAfterDays * 86_400_000, perEndpoint: config.webhookPerEndpoint });
  const indexer = createIndexer({ db, config, chains, handlers: chainEvents, authorizedTransfers: x402.authorizedTransfers, deposits, afterCommit: () => deliverer.poke(), logger, metrics, clock });
  return {
    config,
    database,
    logger,
    clock,
    metrics,
    auth: createAuth(config, db, authSecrets[0]!, logger),
    health: createHealthService(config, database, clock),
    idempotency: createIdempotencyService(db, createSealer(authSecrets, 'trisettle/idempotency-responses/v1'), clock),
    keys,
    platforms,
    events: createEventsService(db, { retention: { days: config.eventRetentionDays, clock } }),
    webhooks: createWebhooksService({ db, config, secrets: webhookSecrets, clock, logger, wake: () => deliverer.poke() }),
    retention: createRetentionService({ db, config, clock, logger }),
    // The test clock bills each period a move passes: it drives these between its steps (docs/subscriptions.md).
    testHelpers: createTestHelpers({ db, chains, pipeline: {
      index: (chainId) => indexer.runOnce(chainId),
      async chargeDue(chainId) {
        const until = await indexedUntil(db, chainId);
        if (until) while ((await subscriptions.chargeDue(chainId, until.time)) > 0);
      },
      // A sender loop of this process is asked for a pass (never a second pass beside it); without one, a pass here.
      send: async (chainId) => (operatorTxs.running(chainId) ? operatorTxs.poke('operator') : operatorTxs.runOnce(chainId)),
      check: subscriptions.checkClockMove,
      billing: subscriptions.billingState,
    } }),
    requestLogs: createRequestLogs(db, logger, { maxBytes: config.requestLogQueueMaxBytes, metrics }),
    timelines: createTimelines({ db, chains, orders, merchants }),
    webhookSecrets,
    chains,
    merchants,
    invitations,
    orders,
    orderTransitions,
    authorizations,
    subscriptions,
    checkout,
    deposits,
    publicSessions,
    refunds,
    settlements,
    balance,
    exports: exportsService,
    operatorTxs,
    relay,
    x402,
    orderCancellation,
    indexer,
    chainEvents,
    deliverer,
  };
}

export type Services = ReturnType<typeof createServices>;
