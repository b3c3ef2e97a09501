import { BaseError, ContractFunctionRevertedError } from 'viem';
import { ApiError } from '../../../lib/api';
import { walletErrorMessage } from '../../../wallet/errors';
import { FlowFailed, type Method } from './context';

/** Reverts no other method can fix: the order itself cannot be paid (or is paid) by this wallet. */
const FINAL_REVERTS = ['OrderExpired', 'AlreadyPaid', 'WrongPayer', 'InvalidSigner', 'OrderCancelled', 'EnforcedPause', 'ERC20InsufficientBalance'];
/** Service answers that mean the same: paying another way would be wrong (a relay may already be paying). */
const FINAL_CODES = ['order_not_payable', 'relay_in_flight', 'invalid_state', 'not_found'];
/**
 * Gasless refusals the page always moves on from to approve + pay, permit or batched: this payer or payment is
 * refused gasless (a banned payer, an amount below the minimum), the relayer's budget is spent for the day, or
 * the wallet needs more gas than the relayer spends (any other non-final code moves on too).
 */
export const GASLESS_FALLBACK_CODES = ['gasless_refused', 'gasless_unavailable', 'gas_limit_exceeded', 'gasless_cap_reached', 'gasless_disabled'];

export function isFinal(err: unknown): boolean {
  if (err instanceof ApiError) return !GASLESS_FALLBACK_CODES.includes(err.code) && (FINAL_CODES.includes(err.code) || err.status === 410);
  if (err instanceof BaseError) {
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    if (revert?.data?.errorName && FINAL_REVERTS.includes(revert.data.errorName)) return true;
  }
  return false;
}

/** The sentence the buyer reads: what went wrong, in words. */
export function failureMessage(err: unknown): string {
  if (err instanceof FlowFailed || err instanceof ApiError) return err.message;
  return walletErrorMessage(err);
}

export const METHOD_LABEL: Record<Method, string> = {
  gasless: 'pay without a network fee',
  batched: 'pay in one confirmation',
  permit: 'sign a permit and pay in one transaction',
  approve: 'approve, then pay',
};

/** "… You can approve, then pay instead." when there is a next method. */
export function withNext(message: string, next: Method | undefined): string {
  return next ? `${message} You can ${METHOD_LABEL[next]} instead.` : message;
}
