import type { Address, Hex } from 'viem';
import type { TypedData } from '../../lib/types';
import { tupleFromMessage } from '../../wallet/tuple';

/** The PayOrder struct as the router's ABI wants it: the typed-data message with uint fields as bigint. */
export type PayOrderStruct = {
  orderId: Hex;
  token: Address;
  amount: bigint;
  payer: Address;
  merchant: Address;
  platform: Address;
  serviceFee: bigint;
  platformFee: bigint;
  reserveHold: bigint;
  deadline: bigint;
  /** 0: paid and split at once; otherwise an authorization the merchant captures before this instant (unix seconds). */
  captureDeadline: bigint;
};

export function toPayOrderStruct(eip712: TypedData): PayOrderStruct {
  return tupleFromMessage('payOrder', eip712.message) as PayOrderStruct;
}
