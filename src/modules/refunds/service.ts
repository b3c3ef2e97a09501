import { getAddress, type Address, type Hex } from 'viem';
import { refundOrderJson, signRefundOrder, toBytes32Id, type RefundOrderMessage } from '../../chain/eip712.js';
import type { Config } from '../../config.js';
import type { Db, Executor, Tx } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import type { RefundState } from '../../db/schema.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { formatUnits, parseAmount } from '../../lib/money.js';
import { recordAlert } from '../alerts/service.js';
import type { ChainsService } from '../chains/service.js';
import { emitEvent } from '../events/service.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { OrderRow } from '../orders/repo.js';
import type { OrdersService } from '../orders/service.js';
import { canTransition, ORDER_TRANSITIONS } from '../orders/state.js';
import type { RouterClient } from '../settlements/router-client.js';
import { applyRefundCancelledWith } from './apply-cancelled.js';
import type { RefundsDeps } from './deps.js';
import { cancelRefund } from './cancel-request.js';
import { refundCancelOutcomeHandler, refundOutcomeHandler } from './outcomes.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { refundEventObject, serializeRefund } from './serialize.js';
import { createRefundsWorker } from './worker.js';
import { canMove } from '../../lib/transitions.js';
import { REFUND_TRANSITIONS } from './state.js';

/** How long a signed refund stays valid on the router (its `deadline`); an unexecuted refund then fails. */
export const REFUND_TTL_SECONDS = 7 * 86_400;

export type { RefundsDeps } from './deps.js';

export type CreateRefundInput = { order_id: string; amount?: string | undefined; reason?: string | undefined; metadata?: Record<string, unknown> | undefined };

export type RefundedLog = {
  chainId: number;
  orderOnchainId: Hex;
  refundOnchainId: Hex;
  to: Address;
  amount: bigint;
  fromReserve: bigint;
  fromSubmitter: bigint;
  /** The sender of the USDC transfer that paid `fromSubmitter` (null when the reserve covered it all). */
  submitter?: Address | null;
  txHash: Hex;
  blockTime: Date;
};

const REFUNDABLE = ORDER_TRANSITIONS.refund_partial.from;
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

export function createRefundsService(deps: RefundsDeps) {
  const { db, chains, orders, router, logger } = deps;

  /** Emits refund.completed / refund.failed with the order (and its metadata) alongside the refund. */
  async function emitRefundEvent(tx: Executor, type: 'refund.completed' | 'refund.failed', refund: RefundRow, order?: OrderRow) {
    const o = order ?? (await refundsRepo.findOrder(tx, refund.order_id))!;
    await emitEvent(tx, { platformId: refund.platform_id, type, data: { object: refundEventObject(refund, o) } });
  }

  /** An open refund → failed, with its event; no-op when it had already moved on. */
  async function fail(tx: Executor, refund: RefundRow, reason: string) {
    if (!canMove(REFUND_TRANSITIONS, refund.state, 'fail')) return undefined;
    const failed = await refundsRepo.update(tx, refund.id, [refund.state], { state: REFUND_TRANSITIONS.fail.to, failure_reason: reason, submit_lease_until: null });
    if (failed) await emitRefundEvent(tx, 'refund.failed', failed);
    return failed;
  }

  /**
   * validate → load + lock the order → guard its state → compute and insert. The order row stays locked
   * until commit, so concurrent requests for one order are serialised and can never over-commit it: the
   * refundable amount counts what is refunded and what open refunds already hold.
   */
  async function create(platformId: string, body: CreateRefundInput): Promise<RefundRow> {
    let requested: bigint | null = null;
    if (body.amount !== undefined) {
      const parsed = parseAmount(body.amount);
      if (!parsed.ok) throw new AppError('validation_failed', `amount ${parsed.reason}`, 'amount');
      requested = parsed.units;
    }
    const signer = chains.requireSigner();
    return db.transaction().execute(async (tx) => {
      const order = await refundsRepo.lockOrder(tx, platformId, body.order_id);
      if (!order) throw new AppError('not_found', `No order '${body.order_id}'.`, 'order_id');
      if (!REFUNDABLE.includes(order.state) || !order.paid_by) {
        throw new AppError('invalid_state', `Order ${order.id} is ${order.state}; a refund needs it ${REFUNDABLE.join(' or ')}.`, 'order_id');
      }
      const open = await refundsRepo.openTotals(tx, order.id);
      const refundable = order.amount - order.refunded_amount - open.amount;
      const amount = requested ?? refundable;
      if (amount <= 0n || amount > refundable) {
        throw new AppError('amount_exceeds_refundable',
          `Order ${order.id} has ${formatUnits(max(refundable, 0n))} USDC left to refund (amount ${formatUnits(order.amount)}, refunded ${formatUnits(order.refunded_amount)}, held by open refunds ${formatUnits(open.amount)}).`,
          'amount');
      }
      // Reserve already promised to open refunds is not offered twice. While a settlement batch carries the
      // order its reserve is on its way to the merchant: count none, and let the submitter fund it all.
      const freeReserve = order.settlement_id ? 0n : max(order.reserve_remaining - open.reserve, 0n);
      const reservePortion = min(amount, freeReserve);
      const fundingRequired = amount - reservePortion;

      const id = newId('re');
      const routerAddress = getAddress(order.pay_to);
      const deadlineSec = Math.floor(chains.get(order.chain_id).clock.now().getTime() / 1000) + REFUND_TTL_SECONDS;
      const message: RefundOrderMessage = {
        orderId: order.onchain_id as Hex,
        refundId: toBytes32Id(id),
        to: getAddress(order.paid_by),
        amount,
        deadline: BigInt(deadlineSec),
      };
      const signature = await signRefundOrder(signer, order.chain_id, routerAddress, message);
      const refund = await refundsRepo.insert(tx, {
        id,
        platform_id: platformId,
        order_id: order.id,
        amount,
        state: fundingRequired === 0n ? 'pending' : 'requires_funding',
        reason: body.reason ?? null,
        metadata: JSON.stringify(body.metadata ?? {}),
        reserve_portion: reservePortion,
        funding_required: fundingRequired,
        onchain_id: message.refundId,
        to_address: message.to,
        pay_to: routerAddress,
        eip712: JSON.stringify(refundOrderJson(order.chain_id, routerAddress, message)),
        signature,
        deadline_at: new Date(deadlineSec * 1000),
      });
      await recordResponseInTx(tx, 201, serializeRefund(refund));
      return refund;
    });
  }

  /**
   * Indexer hook (inside the indexer's transaction, after it de-duplicated the log): the router paid the
   * refund. The chain is the truth: a refund this service had marked failed still completes (with an
   * alert), and the amounts recorded are the ones the router moved. Never throws for bad data: an alert
   * row is written instead, so one odd log cannot stall the indexer.
   */
  async function applyRefunded(tx: Tx, e: RefundedLog): Promise<void> {
    const refund = await refundsRepo.lockByOnchainId(tx, e.refundOnchainId);
    if (!refund) {
      await recordAlert(tx, e.chainId, 'unknown_refund', { refund_onchain_id: e.refundOnchainId, order_onchain_id: e.orderOnchainId, amount: e.amount, tx_hash: e.txHash });
      logger.error({ chain_id: e.chainId, refund_onchain_id: e.refundOnchainId, tx_hash: e.txHash }, 'ALERT: Refunded log for an unknown refund');
      return;
    }
    if (!canMove(REFUND_TRANSITIONS, refund.state, 'complete')) {
      logger.warn({ refund_id: refund.id, tx_hash: e.txHash }, 'Refunded log for a refund already completed; ignored');
      return;
    }
    const order = (await refundsRepo.lockOrderById(tx, refund.order_id))!;
    if (order.onchain_id !== e.orderOnchainId || refund.amount !== e.amount || refund.to_address.toLowerCase() !== e.to.toLowerCase()) {
      await recordAlert(tx, e.chainId, 'refund_mismatch', { refund_id: refund.id, order_id: order.id, amount: e.amount, expected_amount: refund.amount, to: e.to, tx_hash: e.txHash });
    }
    if (refund.state === 'failed') {
      await recordAlert(tx, e.chainId, 'refund_completed_after_failure', { refund_id: refund.id, failure_reason: refund.failure_reason, tx_hash: e.txHash });
    }
    const completed = (await refundsRepo.update(tx, refund.id, [refund.state], {
      state: REFUND_TRANSITIONS.complete.to, tx_hash: e.txHash, completed_at: e.blockTime, reserve_portion: e.fromReserve, funding_required: e.fromSubmitter,
      funded_by: e.fromSubmitter > 0n ? (e.submitter ?? null) : null,
      submit_lease_until: null, failure_reason: null,
    }))!;
    const updated = await applyToOrder(tx, e, order, refund);
    await emitRefundEvent(tx, 'refund.completed', completed, updated);
  }

  async function applyToOrder(tx: Tx, e: RefundedLog, order: OrderRow, refund: RefundRow): Promise<OrderRow> {
    let refunded = order.refunded_amount + e.amount;
    let reserve = order.reserve_remaining - e.fromReserve;
    if (refunded > order.amount || reserve < 0n) {
      await recordAlert(tx, e.chainId, 'refund_order_out_of_sync', { order_id: order.id, refund_id: refund.id, refunded, reserve, tx_hash: e.txHash });
      refunded = min(refunded, order.amount);
      reserve = max(reserve, 0n);
    }
    const trigger = refunded >= order.amount ? 'refund_full' : 'refund_partial';
    const set = { refunded_amount: refunded, reserve_remaining: reserve };
    if (canTransition(order.state, trigger)) return orders.transition(tx, order, trigger, set);
    await recordAlert(tx, e.chainId, 'refund_order_state', { order_id: order.id, state: order.state, refund_id: refund.id, tx_hash: e.txHash });
    return refundsRepo.setOrderAmounts(tx, order.id, set);
  }

  const worker = createRefundsWorker({ ...deps, fail });

  return {
    create,
    applyRefunded,
    /** Indexer hook: RefundCancelled → the open refund fails (the only way besides its deadline). */
    applyRefundCancelled: applyRefundCancelledWith(fail, logger),
    /** Operator sender outcome handlers, registered per purpose in services.ts. */
    outcomeHandlers: { refund: refundOutcomeHandler(logger), refund_cancel: refundCancelOutcomeHandler(logger) },
    /** POST /v1/refunds/:id/cancel: asks the router to cancel the signature; failed once RefundCancelled is indexed. */
    cancel: (platformId: string, id: string) => cancelRefund(db, platformId, id),
    /** One pass of the refund worker: fail refunds past their deadline, check sent ones, send reserve-covered ones. */
    runOnce: worker.runOnce,

    async get(platformId: string, id: string): Promise<RefundRow> {
      const refund = await refundsRepo.findById(db, platformId, id);
      if (!refund) throw notFound('refund');
      return refund;
    },

    async list(platformId: string, q: { order_id?: string | undefined; state?: RefundState | undefined; limit: number; cursor?: string | undefined }) {
      const rows = await refundsRepo.list(db, platformId, { orderId: q.order_id, state: q.state }, q.limit, decodeCursor(q.cursor));
      return toPage(rows, q.limit, serializeRefund);
    },
  };
}

export type RefundsService = ReturnType<typeof createRefundsService>;
