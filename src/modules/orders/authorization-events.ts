import type { Address, Hex } from 'viem';

/** An OrderAuthorized log (capture_method manual: the router holds `amount` until capture, void or reclaim). */
export type OrderAuthorizedEvent = {
  chainId: number;
  orderId: Hex;
  payer: Address;
  merchant: Address;
  token: Address;
  amount: bigint;
  platform: Address;
  /** The signed captureDeadline (unix seconds): capture needs block time before it, reclaim at or after it. */
  captureDeadline: bigint;
  txHash: Hex;
  blockNumber: bigint;
  blockTime: Date;
};

/** An OrderCaptured log: `captured` paid out (its OrderPaid follows in the same transaction), `returned` to the payer. */
export type OrderCapturedEvent = { chainId: number; orderId: Hex; authorized: bigint; captured: bigint; returned: bigint; txHash: Hex; blockTime: Date };

/** AuthorizationVoided (the operator's voidAuthorization) or AuthorizationReclaimed (anyone, after captureDeadline): all back to the payer. */
export type AuthorizationEndedEvent = { chainId: number; orderId: Hex; payer: Address; amount: bigint; by: 'void' | 'reclaim'; txHash: Hex; blockTime: Date };
