import type { Address, Hex } from 'viem';
import type { ArrivalProof } from '../../chain/arrival-proof.js';
import type { ChainRuntime } from '../chains/service.js';
import type { Tx } from '../../db/client.js';
import type { AuthorizationEndedEvent, OrderAuthorizedEvent, OrderCapturedEvent } from '../orders/authorization-events.js';
import type { DepositLog, OrderPaidEvent } from './events.js';
import type { ChargedEvent, PermissionRevokedEvent } from '../subscriptions/apply-manager-events.js';

export type { AuthorizationEndedEvent, OrderAuthorizedEvent, OrderCapturedEvent };

export type RefundedEvent = { chainId: number; orderOnchainId: Hex; refundOnchainId: Hex; to: Hex; amount: bigint; fromReserve: bigint; fromSubmitter: bigint; submitter: Hex | null; txHash: Hex; blockTime: Date };
export type ReserveReleaseEvent = { chainId: number; orderOnchainId: Hex; batchOnchainId: Hex; merchant: Address; amount: bigint; txHash: Hex };
export type BatchSettledEvent = { chainId: number; batchOnchainId: Hex; orderCount: bigint; totalReleased: bigint; txHash: Hex; blockTime: Date };
export type PayOrderCancelledEvent = { chainId: number; orderOnchainId: Hex; txHash: Hex; blockTime: Date };
export type RefundCancelledEvent = { chainId: number; refundOnchainId: Hex; txHash: Hex; blockTime: Date };

/**
 * One handler per router event a module owns, given to `createIndexer` once at wiring time (src/services.ts).
 * Each runs inside the range's transaction, after the log was recorded as new (chain_logs), so it runs once
 * per event. OrderPaid is batched: a run of consecutive payments (the bulk of any backlog) arrives in one
 * call, in chain order. ExcessRecovered, ServiceTreasuryUpdated and stray USDC transfers are the indexer's own
 * (dispatch.ts).
 */
export type ChainEventHandlers = {
  OrderPaid: (tx: Tx, events: OrderPaidEvent[]) => Promise<unknown>;
  /** Charge later: the router holds a manual order's payment. */
  OrderAuthorized: (tx: Tx, e: OrderAuthorizedEvent) => Promise<unknown>;
  /** The first half of a capture (its OrderPaid follows in the same transaction). */
  OrderCaptured: (tx: Tx, e: OrderCapturedEvent) => Promise<unknown>;
  /** The operator's voidAuthorization: the whole authorization back to the payer. */
  AuthorizationVoided: (tx: Tx, e: AuthorizationEndedEvent) => Promise<unknown>;
  /** The payer's (anyone's) reclaim after captureDeadline: the whole authorization back to the payer. */
  AuthorizationReclaimed: (tx: Tx, e: AuthorizationEndedEvent) => Promise<unknown>;
  Refunded: (tx: Tx, e: RefundedEvent) => Promise<void>;
  ReserveReleased: (tx: Tx, e: ReserveReleaseEvent) => Promise<void>;
  ReserveReleaseFailed: (tx: Tx, e: ReserveReleaseEvent) => Promise<void>;
  BatchSettled: (tx: Tx, e: BatchSettledEvent) => Promise<void>;
  /** The operator voided a signed PayOrder (cancelOrders): it can never be paid. */
  PayOrderCancelled: (tx: Tx, e: PayOrderCancelledEvent) => Promise<void>;
  /** The operator voided a signed RefundOrder (cancelRefund): it can never execute. */
  RefundCancelled: (tx: Tx, e: RefundCancelledEvent) => Promise<void>;
  /** The SubscriptionManager's charge of a period (its OrderPaid, same transaction, confirms the order). */
  Charged: (tx: Tx, e: ChargedEvent) => Promise<void>;
  /** The SubscriptionManager's revocation of a permission (by the payer, or the operator's revokeAsOperator). */
  PermissionRevoked: (tx: Tx, e: PermissionRevokedEvent) => Promise<void>;
};

/** A USDC transfer into the router that no router event pulled, as the indexer recorded it (unmatched_transfers). */
export type UnmatchedTransferSeen = { chainId: number; token: Address; from: Address; value: bigint; blockTime: Date };

/**
 * An unmatched USDC transfer into the router made by `from`'s ERC-3009 authorization `nonce`: the token's
 * AuthorizationUsed(from, nonce) directly followed by this very Transfer (chain/find-arrival.ts), the x402 module's
 * front-running path. `transferId`: its unmatched_transfers row; `proof`: the on-chain ArrivalProof of it
 * (chain/arrival-proof.ts), built before the claim's transaction. Runs once per transfer; answers true when it owns
 * the transfer (then no unmatched_transfer alert).
 */
export type AuthorizedTransferEvent = UnmatchedTransferSeen & { nonce: Hex; txHash: Hex; transferId: string; proof: ArrivalProof };

/**
 * The x402 module's front-running path, in two steps. `candidate` (in the range's transaction, a database read):
 * could the transfer be an open verified authorization's (sender = its payer, value = its amount, mined inside its
 * window)? Only then is the transaction's receipt read (read-due-receipts.ts), so transfers from anyone else cost no
 * RPC call. `claim`: the receipt showed `from`'s authorization `nonce` used in that transaction.
 */
export type AuthorizedTransfers = {
  candidate: (tx: Tx, t: UnmatchedTransferSeen) => Promise<boolean>;
  /** The arrival's proof (RPC, outside any transaction); null when the block cannot be proven (then not claimed). */
  prove: (rt: ChainRuntime, q: { txHash: Hex; from: Address; nonce: Hex }) => Promise<ArrivalProof | null>;
  claim: (tx: Tx, e: AuthorizedTransferEvent) => Promise<boolean>;
};

export type ChainEventName = keyof ChainEventHandlers;

/**
 * The deposits module's part (docs/deposits.md): which addresses to watch on a chain (read with each range), and the
 * handler of each new deposit log (a transfer in, DepositReturned, DepositSwept), run once per log in the range's transaction.
 */
export type DepositHandlers = {
  watched: (chainId: number) => Promise<string[]>;
  apply: (tx: Tx, chainId: number, log: DepositLog, blockTime: Date) => Promise<void>;
};
