import { getAddress, type Address } from 'viem';
import { AppError } from '../../lib/errors.js';
import type { OrderRow } from '../orders/repo.js';
import { payOrderNonce, type Authorization } from './typed-data.js';

/**
 * What can be checked of an authorization without the chain's code: the order is still payable at the
 * chain's time `now` (unix s), the authorization is for this order (nonce; its window is the one offered,
 * eligibility.ts) and from a payer the order accepts. Throws the AppError naming the first problem.
 */
export function checkAuthorization(order: OrderRow, auth: Authorization, now: bigint): void {
  const deadline = BigInt(Math.floor(order.deadline_at.getTime() / 1000));
  if (order.state !== 'pending_payment') throw new AppError('order_not_payable', `Order ${order.id} is ${order.state}.`);
  if (now > deadline) throw new AppError('order_not_payable', `Order ${order.id} is past its deadline on the chain's clock.`);
  const expected = payOrderNonce(order);
  if (auth.nonce.toLowerCase() !== expected.toLowerCase()) {
    throw new AppError('invalid_authorization', `nonce must be hashPayOrder(order) = ${expected}: this authorization is for another order.`, 'nonce');
  }
  const lock = order.payer_address ? getAddress(order.payer_address) : null;
  if (lock !== null && lock !== getAddress(auth.from as Address)) {
    throw new AppError('payer_mismatch', `Order ${order.id} is locked to payer ${lock}; the authorization is from ${auth.from}.`, 'from');
  }
}
