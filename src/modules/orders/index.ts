import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { ChainsService } from '../chains/service.js';
import type { EventType } from '../events/service.js';
import { applyOrderAuthorized } from './apply-authorized.js';
import { applyOrderCaptured } from './apply-captured.js';
import { applyOrderPaid } from './apply-paid.js';
import { applyAuthorizationEnded } from './apply-voided.js';
import type { AuthorizationEndedEvent, OrderAuthorizedEvent, OrderCapturedEvent } from './authorization-events.js';
import { applyOrderPaidMany } from './apply-paid-many.js';
import { createOrder, type CreateOrderBody } from './create.js';
import { lazyPayOrderSigner, type OrdersDeps } from './deps.js';
import type { OrderTransitions } from './events.js';
import { expireDueOrders } from './expire.js';
import { foldOrderCounts } from './fold-counts.js';
import { getOrder } from './get.js';
import { insertPreparedOrder } from './insert.js';
import { listOrders } from './list-orders.js';
import type { OrderPaidEvent } from './paid-event.js';
import { prepareOrder, type Caller, type NewOrderInput } from './prepare.js';
import { prepareChargeOrder, type ChargeOrderInput } from './prepare-charge.js';
import type { NewOrderRow, OrderRow } from './repo.js';
import type { ListOrdersFilters } from './schemas.js';
import { createSigningMemory } from './signing-memory.js';
import type { OrderTrigger } from './state.js';
import { ordersSummary } from './summary.js';
import { transitionOrder } from './transition.js';

export type { Caller, NewOrderInput } from './prepare.js';
export type { ChargeOrderInput } from './prepare-charge.js';
export type { AuthorizationEndedEvent, OrderAuthorizedEvent, OrderCapturedEvent } from './authorization-events.js';
export type { OrderTransitioned, OrderTransitionListener, OrderTransitions } from './events.js';
export { createOrderTransitions } from './events.js';
export { captureBeforeOf } from './prepare.js';

/**
 * The orders service: each operation is a function of its own file (operation map in docs/architecture.md),
 * bound here to the service's dependencies. Transitions are published on `transitions` (events.ts).
 */
export function createOrdersService(d: { db: Db; config: Config; chains: ChainsService; clock: Clock; transitions: OrderTransitions }) {
  const deps: OrdersDeps = { ...d, memory: createSigningMemory(), sign: lazyPayOrderSigner(d.chains) };
  return {
    prepare: (caller: Caller, input: NewOrderInput) => prepareOrder(deps, caller, input),
    insertPrepared: (tx: Executor, row: NewOrderRow) => insertPreparedOrder(tx, row),
    /** A subscription charge's order, at the terms the payer signed (prepare-charge.ts). */
    prepareCharge: (c: ChargeOrderInput) => prepareChargeOrder(deps, c),
    transition: (tx: Executor, order: OrderRow, trigger: OrderTrigger, set: Partial<Record<string, unknown>>, eventType?: EventType) =>
      transitionOrder(deps, tx, order, trigger, set, eventType),
    create: <B>(caller: Caller, body: CreateOrderBody, answer: (o: OrderRow) => B) => createOrder(deps, caller, body, answer),
    get: (platformId: string, id: string) => getOrder(deps, platformId, id),
    list: (platformId: string, q: ListOrdersFilters) => listOrders(deps, platformId, q),
    summary: (platformId: string, now?: Date) => ordersSummary(deps, platformId, now),
    /** Folds the order-count deltas into each platform's counts (the worker's pass; migration 039). */
    foldCounts: (batch?: number) => foldOrderCounts(deps.db, batch),
    applyPaid: (tx: Executor, ev: OrderPaidEvent) => applyOrderPaid(deps, tx, ev),
    /** applyPaid for a run of OrderPaid logs, set-based (the indexer's batched path). */
    applyPaidMany: (tx: Executor, events: OrderPaidEvent[]) => applyOrderPaidMany(deps, tx, events),
    expireDue: (chainId: number, indexedUntil: Date, batch?: number) => expireDueOrders(deps, chainId, indexedUntil, batch),
    /** Charge later: OrderAuthorized, OrderCaptured (before its OrderPaid), AuthorizationVoided / AuthorizationReclaimed. */
    applyAuthorized: (tx: Executor, ev: OrderAuthorizedEvent) => applyOrderAuthorized(deps, tx, ev),
    applyCaptured: (tx: Executor, ev: OrderCapturedEvent) => applyOrderCaptured(deps, tx, ev),
    applyAuthorizationEnded: (tx: Executor, ev: AuthorizationEndedEvent) => applyAuthorizationEnded(deps, tx, ev),
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
