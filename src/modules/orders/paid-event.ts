import type { Address, Hex } from 'viem';

/** An OrderPaid log as the orders module applies it (decoded by the indexer, with its block's time). */
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
  /** Chain time (unix seconds) from which settleBatch may release this order's reserve (the hold recorded at payment). */
  releaseAfter: bigint;
  txHash: Hex;
  blockNumber: bigint;
  blockTime: Date;
};
