import { getAbiItem, parseAbiItem, type Hex, type Log } from 'viem';
import { depositForwarderAbi } from '../../chain/artifacts/DepositForwarder.js';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { subscriptionManagerAbi } from '../../chain/subscription-manager-abi.js';

/** The router events the indexer reads (DESIGN §6): payments, authorizations (charge later: held, captured, voided,
 * reclaimed), refunds, reserve releases, batches, cancellations, the owner's recoveries and the service treasury's
 * changes (the ledger's service-fee recipient). */
export const INDEXED_EVENTS = [
  getAbiItem({ abi: paymentRouterAbi, name: 'OrderPaid' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'OrderAuthorized' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'OrderCaptured' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'AuthorizationVoided' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'AuthorizationReclaimed' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'Refunded' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'ReserveReleased' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'ReserveReleaseFailed' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'BatchSettled' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'PayOrderCancelled' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'RefundCancelled' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'ExcessRecovered' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'ServiceTreasuryUpdated' }),
] as const;

/** The SubscriptionManager's events (read at its own address where SUBSCRIPTION_MANAGER_ADDRESS_<chain> is set). */
export const MANAGER_EVENTS = [
  getAbiItem({ abi: subscriptionManagerAbi, name: 'Charged' }),
  getAbiItem({ abi: subscriptionManagerAbi, name: 'PermissionRevoked' }),
] as const;

/** The USDC token's Transfer, read with `to = router` (money sent to the router, by the router's pull or not). */
export const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

/** A deposit address's own events (read at the watched deposit addresses only: anyone can emit look-alikes elsewhere). */
export const DEPOSIT_EVENTS = [
  getAbiItem({ abi: depositForwarderAbi, name: 'DepositReturned' }),
  getAbiItem({ abi: depositForwarderAbi, name: 'DepositSwept' }),
] as const;
export type ForwarderLog = Log<bigint, number, false, (typeof DEPOSIT_EVENTS)[number], true>;
/** A USDC transfer into a watched deposit address, or a deposit's own event. */
export type DepositLog = TransferLog | ForwarderLog;

export type RouterLog = Log<bigint, number, false, (typeof INDEXED_EVENTS)[number] | (typeof MANAGER_EVENTS)[number], true>;
export type TransferLog = Log<bigint, number, false, typeof TRANSFER_EVENT, true>;

export type { OrderPaidEvent } from '../orders/paid-event.js';

/**
 * What an event means, independent of where it sits: a log re-included at another block or log index
 * after a reorg has the same key, and (chain, key) is applied once. Events without an id of their own
 * (ExcessRecovered, token transfers) are keyed by transaction (a re-included transaction keeps its hash)
 * and their ordinal among identical events of that transaction.
 */
export function routerEventKey(log: RouterLog, ordinal: number): string {
  const a = log.args as Record<string, unknown>;
  const id = (v: unknown) => String(v).toLowerCase();
  switch (log.eventName) {
    case 'OrderPaid':
    case 'OrderAuthorized':
    case 'OrderCaptured':
    case 'AuthorizationVoided':
    case 'AuthorizationReclaimed':
    case 'PayOrderCancelled':
      return `${log.eventName}:${id(a.orderId)}`;
    case 'Refunded':
    case 'RefundCancelled':
      return `${log.eventName}:${id(a.refundId)}`;
    case 'BatchSettled':
      return `BatchSettled:${id(a.batchId)}`;
    case 'Charged':
      return `Charged:${id(a.orderId)}`;
    case 'PermissionRevoked':
      return `PermissionRevoked:${id(a.permissionHash)}`;
    case 'ReserveReleased':
    case 'ReserveReleaseFailed':
      return `${log.eventName}:${id(a.batchId)}:${id(a.orderId)}`;
    case 'ExcessRecovered':
    case 'ServiceTreasuryUpdated':
      return `${log.eventName}:${log.transactionHash.toLowerCase()}:${ordinal}`;
  }
}

export const transferEventKey = (t: TransferLog, ordinal: number) => `Transfer:${t.transactionHash.toLowerCase()}:${ordinal}`;

/** Deposit logs by meaning, as routerEventKey: a swept order once; transfers and returns by transaction and ordinal. */
export function depositEventKey(log: DepositLog, ordinal: number): string {
  const tx = log.transactionHash.toLowerCase();
  if (log.eventName === 'DepositSwept') return `DepositSwept:${String(log.args.orderId).toLowerCase()}`;
  if (log.eventName === 'DepositReturned') return `DepositReturned:${tx}:${ordinal}`;
  return `DepositIn:${tx}:${ordinal}`;
}

/** For each item, how many identical items (same transaction, same tuple) came before it. */
export function ordinals<T extends { transactionHash: Hex }>(items: T[], tuple: (t: T) => string): number[] {
  const seen = new Map<string, number>();
  return items.map((t) => {
    const k = `${t.transactionHash}|${tuple(t)}`;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    return n;
  });
}

/** RPC errors that mean "ask for fewer blocks", across common providers. */
export function isRangeError(err: unknown): boolean {
  const text = `${(err as { message?: string })?.message ?? ''} ${(err as { details?: string })?.details ?? ''}`.toLowerCase();
  return /block range|range (is )?too (large|wide)|too many (results|logs|blocks)|limit exceeded|query returned more than|exceed(s|ed)? .*(range|limit)|response size/.test(text);
}

/** Circle's FiatTokenV2 (ERC-3009): an authorization was used (transferWithAuthorization / receiveWithAuthorization). */
export const AUTHORIZATION_USED_EVENT = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');
