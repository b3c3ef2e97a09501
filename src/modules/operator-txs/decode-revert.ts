import { BaseError, decodeErrorResult, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';

/** ERC-20 errors a router call can bubble up (OpenZeppelin 5 names), for names in records and logs. */
const erc20Errors = [
  { type: 'error', name: 'ERC20InsufficientAllowance', inputs: [{ name: 'spender', type: 'address' }, { name: 'allowance', type: 'uint256' }, { name: 'needed', type: 'uint256' }] },
  { type: 'error', name: 'ERC20InsufficientBalance', inputs: [{ name: 'sender', type: 'address' }, { name: 'balance', type: 'uint256' }, { name: 'needed', type: 'uint256' }] },
] as const;

/** Revert data carried by a viem error (what viem's internal getRevertErrorData reads). */
function revertData(err: unknown): Hex | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const inner = err.walk() as { data?: Hex | { data?: Hex } };
  const data = typeof inner?.data === 'object' ? inner.data?.data : inner?.data;
  return typeof data === 'string' && data.startsWith('0x') ? data : undefined;
}

/**
 * The custom error name of a reverted call, or null when the error is not a revert (RPC trouble, timeout):
 * only a revert may resolve an intent as rejected.
 */
export function revertNameOf(err: unknown): string | null {
  const data = revertData(err);
  if (data && data.length >= 10) {
    try {
      const decoded = decodeErrorResult({ abi: [...paymentRouterAbi, ...erc20Errors], data }) as { errorName: string; args?: readonly unknown[] };
      // A token's require() string (Circle's USDC: "Blacklistable: account is blacklisted", "Pausable: paused").
      const reason = decoded.args?.[0];
      if (decoded.errorName === 'Error' && typeof reason === 'string') return `Error: ${reason.slice(0, 200)}`;
      return decoded.errorName;
    } catch {
      return `unknown error ${data.slice(0, 10)}`;
    }
  }
  const text = `${(err as { shortMessage?: string })?.shortMessage ?? ''} ${(err as { details?: string })?.details ?? ''}`;
  return /execution reverted|reverted/i.test(text) ? 'reverted' : null;
}
