import type { Hex } from 'viem';
import type { Tx } from '../../db/client.js';

/** What the refunds, settlements and orders modules apply for their chain events, inside the indexer's transaction. */
export type IndexerHooks = {
  applyRefunded?: (tx: Tx, e: { chainId: number; orderOnchainId: Hex; refundOnchainId: Hex; to: Hex; amount: bigint; fromReserve: bigint; fromSubmitter: bigint; submitter: Hex | null; txHash: Hex; blockTime: Date }) => Promise<void>;
  applyReserveReleased?: (tx: Tx, e: { chainId: number; orderOnchainId: Hex; batchOnchainId: Hex; merchant: Hex; amount: bigint; txHash: Hex }) => Promise<void>;
  applyReserveReleaseFailed?: (tx: Tx, e: { chainId: number; orderOnchainId: Hex; batchOnchainId: Hex; merchant: Hex; amount: bigint; txHash: Hex }) => Promise<void>;
  applyBatchSettled?: (tx: Tx, e: { chainId: number; batchOnchainId: Hex; orderCount: bigint; totalReleased: bigint; txHash: Hex; blockTime: Date }) => Promise<void>;
  /** The operator voided a signed PayOrder (cancelOrders): it can never be paid. */
  applyPayOrderCancelled?: (tx: Tx, e: { chainId: number; orderOnchainId: Hex; txHash: Hex; blockTime: Date }) => Promise<void>;
  /** The operator voided a signed RefundOrder (cancelRefund): it can never execute. */
  applyRefundCancelled?: (tx: Tx, e: { chainId: number; refundOnchainId: Hex; txHash: Hex; blockTime: Date }) => Promise<void>;
  /** After a commit that applied logs (and so wrote outbox rows): lets the webhook deliverer start at once. */
  afterCommit?: () => void;
};
