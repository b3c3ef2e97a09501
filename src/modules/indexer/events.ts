import { getAbiItem, type Address, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';

/** The router events the indexer reads (DESIGN §6): payments, refunds, reserve releases and batches. */
export const INDEXED_EVENTS = [
  getAbiItem({ abi: paymentRouterAbi, name: 'OrderPaid' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'Refunded' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'ReserveReleased' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'ReserveReleaseFailed' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'BatchSettled' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'PayOrderCancelled' }),
  getAbiItem({ abi: paymentRouterAbi, name: 'RefundCancelled' }),
] as const;

export type OrderPaidEvent = {
  chainId: number;
  orderId: Hex;
  payer: Address;
  merchant: Address;
  token: Address;
  amount: bigint;
  serviceFee: bigint;
  platformFee: bigint;
  reserveHold: bigint;
  platform: Address;
  /** The router's per-order reserve hold: settleBatch releases the reserve only after this (unix seconds). */
  releaseAfter: bigint;
  txHash: Hex;
  blockNumber: bigint;
  blockTime: Date;
};

/** RPC errors that mean "ask for fewer blocks", across common providers. */
export function isRangeError(err: unknown): boolean {
  const text = `${(err as { message?: string })?.message ?? ''} ${(err as { details?: string })?.details ?? ''}`.toLowerCase();
  return /block range|range (is )?too (large|wide)|too many (results|logs|blocks)|limit exceeded|query returned more than|exceed(s|ed)? .*(range|limit)|response size/.test(text);
}

export function isRateLimited(err: unknown): boolean {
  const e = err as { status?: number; message?: string; code?: number };
  return e?.status === 429 || e?.code === 429 || /429|rate limit|too many requests/i.test(e?.message ?? '');
}
