import type { Executor } from '../../db/client.js';
import type { OrderState } from '../../db/schema.js';
import type { MovedOrder, OrderRow } from './repo.js';
import type { OrderTrigger } from './state.js';

/**
 * An order transition as written, published inside the transaction that wrote it: a subscriber's writes
 * commit or roll back with it. Modules that follow orders (checkout's sessions, the public read's cache)
 * subscribe at wiring time (services.ts); orders never imports them (checkout depends on orders).
 */
export type OrderTransitioned = {
  tx: Executor;
  trigger: OrderTrigger;
  to: OrderState;
  /** When orders wrote it (its clock), for columns a subscriber stamps with it (a session's completed_at). */
  at: Date;
  /** Every order the statement moved (one, or a whole batch of the set-based apply-paid path), with the state it left. */
  moved: readonly { order: MovedOrder; from: OrderState }[];
  /**
   * The whole rows of some moved orders as written (read in the transaction when the batched path moved
   * them, whose rows stay in the database), for a subscriber whose events embed the order.
   */
  rows: (ids: readonly string[]) => Promise<OrderRow[]>;
};

export type OrderTransitionListener = (e: OrderTransitioned) => void | Promise<void>;
export type OrderTransitions = ReturnType<typeof createOrderTransitions>;

/** The in-process channel of OrderTransitioned: listeners run in subscription order, each awaited. */
export function createOrderTransitions() {
  const listeners: OrderTransitionListener[] = [];
  return {
    subscribe(listener: OrderTransitionListener): void {
      listeners.push(listener);
    },
    async publish(e: OrderTransitioned): Promise<void> {
      if (e.moved.length === 0) return;
      for (const listener of listeners) await listener(e);
    },
  };
}
