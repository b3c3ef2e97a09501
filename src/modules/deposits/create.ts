import { getAddress, type Address } from 'viem';
import { badRefundTo, depositPayOrder, depositTermsOf, predictDepositAddress } from '../../chain/deposit-terms.js';
import { payOrderFromJson } from '../../chain/eip712.js';
import { isWellFormedAddress } from '../../lib/address.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { OrderRow } from '../orders/repo.js';
import type { DepositsDeps } from './deps.js';
import { depositsRepo } from './repo.js';

const refused = (why: string) => new AppError('invalid_refund_address', `refund_address cannot be ${why}.`, 'refund_address');

function parseRefund(raw: string): Address {
  if (!isWellFormedAddress(raw)) throw new AppError('invalid_refund_address', 'refund_address must be a 0x-prefixed 20-byte hex address (EIP-55 checksummed or all lowercase).', 'refund_address');
  return getAddress(raw);
}

/** The forwarder's deadline: the signed one, or for a session with late_payment accept its expiry + the grace window. */
function depositDeadline(signed: bigint, latePayment: string | null, graceSeconds: number): bigint {
  return latePayment === 'accept' ? signed + BigInt(graceSeconds) : signed;
}

/**
 * POST /v1/orders/{id}/deposit_address (platformId set) and its public twin on the session token (platformId null).
 * Idempotent for the same refund address; the address and the signature are made once, then the order shows them.
 * Only an open automatic order gets one: its PayOrder must be payable by the clone (captureDeadline 0).
 */
export async function createDepositAddress(deps: DepositsDeps, q: { orderId: string; platformId: string | null }, rawRefund: string): Promise<OrderRow> {
  const refundTo = parseRefund(rawRefund);
  const found = await depositsRepo.orderForDeposit(deps.db, q.orderId, q.platformId);
  if (!found) throw notFound('order');
  const { late_payment: latePayment, session_expires_at: _expires, ...order } = found;
  if (order.deposit_address) {
    if (order.refund_address?.toLowerCase() === refundTo.toLowerCase()) return order;
    throw new AppError('deposit_refund_address_mismatch', `The deposit address was made for refund address ${order.refund_address}; it cannot change.`, 'refund_address');
  }
  const chain = deps.chains.get(order.chain_id);
  if (!chain.depositFactory) throw new AppError('deposits_unavailable', `Deposit addresses are not offered on chain ${order.chain_id}.`);
  if (order.capture_method === 'manual' || order.subscription_id) {
    throw new AppError('order_not_payable', 'Authorization (charge later) and subscription orders cannot be paid through a deposit address.');
  }
  if (order.state !== 'pending_payment' || order.deadline_at.getTime() <= deps.clock.now().getTime()) {
    throw new AppError('order_not_payable', `The order is ${order.state === 'pending_payment' ? 'past its deadline' : order.state}: it cannot get a deposit address.`);
  }
  const msg = payOrderFromJson(order.eip712 as never);
  const terms = depositTermsOf(msg, depositDeadline(msg.deadline, latePayment, deps.config.depositLateGraceSeconds));
  const p = { factory: chain.depositFactory, router: chain.router, token: chain.usdc };
  const deposit = predictDepositAddress({ ...p, terms, refundTo });
  const bad = badRefundTo(refundTo, { ...p, deposit });
  if (bad) throw refused(bad);
  const signature = await deps.sign(chain.chainId, chain.router, depositPayOrder(terms, deposit));
  const watchUntil = new Date((Number(terms.deadline) + deps.config.depositWatchDays * 86_400) * 1000);
  deps.changing(order.id);
  const set = await deps.db.transaction().execute(async (tx) => {
    const row = await depositsRepo.setOnOrder(tx, order.id, deposit, refundTo);
    if (!row) return null;
    await depositsRepo.insert(tx, {
      order_id: order.id, platform_id: order.platform_id, chain_id: order.chain_id, address: deposit.toLowerCase(), refund_to: refundTo,
      factory: chain.depositFactory!, deadline: terms.deadline, signature, watch_until: watchUntil,
    });
    return row;
  });
  // Lost a race with another request: answer as if it came second.
  return set ?? createDepositAddress(deps, q, rawRefund);
}
