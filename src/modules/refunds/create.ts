import { getAddress, type Hex } from 'viem';
import { refundOrderJson, signRefundOrder, toBytes32Id, type RefundOrderMessage } from '../../chain/eip712.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { formatUnits, parseAmount } from '../../lib/money.js';
import { canMove } from '../../lib/transitions.js';
import type { ChainsService } from '../chains/service.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { OrderRow } from '../orders/repo.js';
import { paidAmountOf } from '../orders/split.js';
import { ORDER_TRANSITIONS } from '../orders/state.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { serializeRefund } from './serialize.js';

/** How long a signed refund stays valid on the router (its `deadline`); an unexecuted refund then fails. */
export const REFUND_TTL_SECONDS = 7 * 86_400;

export type CreateRefundInput = { order_id: string; amount?: string | undefined; reason?: string | undefined; metadata?: Record<string, unknown> | undefined };
export type CreateRefundDeps = { db: Db; chains: ChainsService };

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

function parseRequested(amount: string | undefined): bigint | null {
  if (amount === undefined) return null;
  const parsed = parseAmount(amount);
  if (!parsed.ok) throw new AppError('validation_failed', `amount ${parsed.reason}`, 'amount');
  return parsed.units;
}

/** The order may take a refund (a paid state, by the order table's refund triggers) and has a payer to refund. */
function guardRefundable(order: OrderRow) {
  const allowed = ORDER_TRANSITIONS.refund_partial.from;
  if (!canMove(ORDER_TRANSITIONS, order.state, 'refund_partial') || !order.paid_by) {
    throw new AppError('invalid_state', `Order ${order.id} is ${order.state}; a refund needs it ${allowed.join(' or ')}.`, 'order_id');
  }
}

/**
 * POST /v1/refunds. validate → load + lock the order → guard its state → compute, sign and insert. The order
 * row stays locked until commit, so concurrent requests for one order are serialised and can never
 * over-commit it: the refundable amount counts what is refunded and what open refunds already hold. The
 * signed deadline is on the chain's clock (money depends on it), never the wall clock.
 */
export async function createRefund(deps: CreateRefundDeps, platformId: string, body: CreateRefundInput): Promise<RefundRow> {
  const requested = parseRequested(body.amount);
  const signer = deps.chains.requireSigner();
  return deps.db.transaction().execute(async (tx) => {
    const order = await refundsRepo.lockOrder(tx, platformId, body.order_id);
    if (!order) throw new AppError('not_found', `No order '${body.order_id}'.`, 'order_id');
    guardRefundable(order);
    const open = await refundsRepo.openTotals(tx, order.id);
    // Up to what was paid out: the amount, or for capture_method manual the captured part (amount_captured).
    const paid = paidAmountOf(order);
    const refundable = paid - order.refunded_amount - open.amount;
    const amount = requested ?? refundable;
    if (amount <= 0n || amount > refundable) {
      throw new AppError('amount_exceeds_refundable',
        `Order ${order.id} has ${formatUnits(max(refundable, 0n))} USDC left to refund (paid ${formatUnits(paid)}, refunded ${formatUnits(order.refunded_amount)}, held by open refunds ${formatUnits(open.amount)}).`,
        'amount');
    }
    // Reserve already promised to open refunds is not offered twice. While a settlement batch carries the
    // order its reserve is on its way to the merchant: count none, and let the submitter fund it all.
    const freeReserve = order.settlement_id ? 0n : max(order.reserve_remaining - open.reserve, 0n);
    const reservePortion = min(amount, freeReserve);
    const id = newId('re');
    const routerAddress = getAddress(order.pay_to);
    const deadlineSec = Math.floor(deps.chains.get(order.chain_id).clock.now().getTime() / 1000) + REFUND_TTL_SECONDS;
    const message: RefundOrderMessage = { orderId: order.onchain_id as Hex, refundId: toBytes32Id(id), to: getAddress(order.paid_by!), amount, deadline: BigInt(deadlineSec) };
    const signature = await signRefundOrder(signer, order.chain_id, routerAddress, message);
    const refund = await refundsRepo.insert(tx, {
      id, platform_id: platformId, order_id: order.id, amount,
      state: amount === reservePortion ? 'pending' : 'requires_funding',
      reason: body.reason ?? null, metadata: JSON.stringify(body.metadata ?? {}),
      reserve_portion: reservePortion, funding_required: amount - reservePortion,
      onchain_id: message.refundId, to_address: message.to, pay_to: routerAddress,
      eip712: JSON.stringify(refundOrderJson(order.chain_id, routerAddress, message)), signature,
      deadline_at: new Date(deadlineSec * 1000),
    });
    await recordResponseInTx(tx, 201, serializeRefund(refund));
    return refund;
  });
}
