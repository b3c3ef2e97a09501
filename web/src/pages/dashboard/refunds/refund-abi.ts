import type { Hex } from 'viem';
import { paymentRouterAbi } from '../../../wallet/abi';
import { tupleFromMessage } from '../../../wallet/tuple';

/**
 * What the dashboard calls to fund a `requires_funding` refund: the router's generated ABI (one source of the
 * RefundOrder layout and of the router's errors), plus the OpenZeppelin ERC-20 errors a token may bubble up
 * through refund() so a short balance or allowance is named.
 */
export const refundRouterAbi = [
  ...paymentRouterAbi,
  {
    type: 'error',
    name: 'ERC20InsufficientBalance',
    inputs: [{ name: 'sender', type: 'address' }, { name: 'balance', type: 'uint256' }, { name: 'needed', type: 'uint256' }],
  },
  {
    type: 'error',
    name: 'ERC20InsufficientAllowance',
    inputs: [{ name: 'spender', type: 'address' }, { name: 'allowance', type: 'uint256' }, { name: 'needed', type: 'uint256' }],
  },
] as const;

type RefundStruct = { orderId: Hex; refundId: Hex; to: Hex; amount: bigint; deadline: bigint };

/** The API's eip712.message (decimal strings) as the router's RefundOrder tuple. */
export function toRefundStruct(m: Record<string, unknown>): RefundStruct {
  return tupleFromMessage('refund', m) as RefundStruct;
}
