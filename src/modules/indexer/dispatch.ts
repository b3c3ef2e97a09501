import type { Hex } from 'viem';
import type { Tx } from '../../db/client.js';
import type { ApplyDeps } from './apply-deps.js';
import type { OrderPaidEvent, RouterLog } from './events.js';
import { applyExcessRecovered } from './excess-recovered.js';
import { applyTreasuryUpdated } from './treasury-updated.js';
import type { ChainEventHandlers, ChainEventName } from './handlers.js';
import { indexerRepo } from './repo.js';

type LogOf<N extends RouterLog['eventName']> = Extract<RouterLog, { eventName: N }>;
type Ctx = { chainId: number; blockTime: Date; funder: Hex | null };
type OneByOne = Exclude<ChainEventName, 'OrderPaid'>;

/** An OrderPaid log as the orders module applies it. */
export const paidEventOf = (chainId: number, log: LogOf<'OrderPaid'>, blockTime: Date): OrderPaidEvent =>
  ({ chainId, txHash: log.transactionHash, ...log.args, blockNumber: log.blockNumber, blockTime });

/** Each event's decoded log in the shape its handler takes (handlers.ts). */
const decode: { [N in OneByOne]: (log: LogOf<N>, c: Ctx) => Parameters<ChainEventHandlers[N]>[1] } = {
  OrderAuthorized: ({ args: a, transactionHash: txHash, blockNumber }, c) => ({ chainId: c.chainId, txHash, ...a, blockNumber, blockTime: c.blockTime }),
  OrderCaptured: ({ args: a, transactionHash: txHash }, c) => ({ chainId: c.chainId, txHash, ...a, blockTime: c.blockTime }),
  AuthorizationVoided: ({ args: a, transactionHash: txHash }, c) => ({ chainId: c.chainId, txHash, ...a, by: 'void', blockTime: c.blockTime }),
  AuthorizationReclaimed: ({ args: a, transactionHash: txHash }, c) => ({ chainId: c.chainId, txHash, ...a, by: 'reclaim', blockTime: c.blockTime }),
  Refunded: ({ args: a, transactionHash: txHash }, c) => ({
    chainId: c.chainId, txHash, orderOnchainId: a.orderId, refundOnchainId: a.refundId, to: a.to, amount: a.amount,
    fromReserve: a.fromReserve, fromSubmitter: a.fromSubmitter, submitter: c.funder, blockTime: c.blockTime,
  }),
  ReserveReleased: ({ args: a, transactionHash: txHash }, c) =>
    ({ chainId: c.chainId, txHash, orderOnchainId: a.orderId, batchOnchainId: a.batchId, merchant: a.merchant, amount: a.amount }),
  ReserveReleaseFailed: ({ args: a, transactionHash: txHash }, c) =>
    ({ chainId: c.chainId, txHash, orderOnchainId: a.orderId, batchOnchainId: a.batchId, merchant: a.merchant, amount: a.amount }),
  BatchSettled: ({ args: a, transactionHash: txHash }, c) =>
    ({ chainId: c.chainId, txHash, batchOnchainId: a.batchId, orderCount: a.orderCount, totalReleased: a.totalReleased, blockTime: c.blockTime }),
  PayOrderCancelled: ({ args: a, transactionHash: txHash }, c) => ({ chainId: c.chainId, txHash, orderOnchainId: a.orderId, blockTime: c.blockTime }),
  RefundCancelled: ({ args: a, transactionHash: txHash }, c) => ({ chainId: c.chainId, txHash, refundOnchainId: a.refundId, blockTime: c.blockTime }),
  Charged: ({ args: a, transactionHash: txHash }, c) => ({ chainId: c.chainId, txHash, ...a, blockTime: c.blockTime }),
  PermissionRevoked: ({ args: a, transactionHash: txHash }, c) => ({ chainId: c.chainId, txHash, ...a, blockTime: c.blockTime }),
};

/**
 * Hands one new router log to the handler of its event (the table given at wiring time); the same path for
 * every chain event. A lone OrderPaid is a batch of one. An event without a handler is an `unhandled_event` alert.
 */
export async function dispatch(tx: Tx, deps: ApplyDeps, chainId: number, log: RouterLog, blockTime: Date, funder: Hex | null = null): Promise<void> {
  if (log.eventName === 'ExcessRecovered') return applyExcessRecovered(tx, deps.logger, chainId, log, blockTime);
  if (log.eventName === 'ServiceTreasuryUpdated') return applyTreasuryUpdated(tx, chainId, log, blockTime);
  const handler = deps.handlers[log.eventName] as ((tx: Tx, e: unknown) => Promise<unknown>) | undefined;
  if (handler) {
    const loose = decode as Record<OneByOne, (log: RouterLog, c: Ctx) => unknown>;
    const event = log.eventName === 'OrderPaid' ? [paidEventOf(chainId, log, blockTime)] : loose[log.eventName](log, { chainId, blockTime, funder });
    await handler(tx, event);
    return;
  }
  await indexerRepo.alert(tx, chainId, 'unhandled_event', { event: log.eventName, tx_hash: log.transactionHash, log_index: log.logIndex });
}
