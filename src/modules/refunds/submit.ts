import { encodeFunctionData, type Address, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { refundOrderFromJson, type RefundOrderJson } from '../../chain/eip712.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { RouterClient } from '../settlements/router-client.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { REFUND_TRANSITIONS } from './state.js';

export type SubmitRefundDeps = { db: Db; router: RouterClient; logger: Logger; clock: Clock };

const messageOf = (r: RefundRow) => refundOrderFromJson(r.eip712 as Pick<RefundOrderJson, 'message'>);

/**
 * Worker step for one claimed pending refund: chain reads outside any transaction, then either it needs
 * funding (the reserve no longer covers it) or it is handed to the operator sender. A refund the router
 * already used (executed or cancelled) is left for the indexer to resolve.
 */
export async function submitRefund(deps: SubmitRefundDeps, r: RefundRow): Promise<void> {
  const chainId = await refundsRepo.chainIdOf(deps.db, r.order_id);
  if (await deps.router.refundUsed(chainId, r.pay_to as Address, messageOf(r).refundId)) return;
  const reserve = await reserveFor(deps, r, chainId);
  if (reserve < r.amount) return toRequiresFunding(deps, r, reserve);
  await enqueue(deps, r, chainId);
}

/**
 * Reserve the router will still have for this refund: its on-chain reserve minus what other refunds of the
 * order, handed to the sender and not yet indexed, will take first.
 */
async function reserveFor(deps: SubmitRefundDeps, r: RefundRow, chainId: number): Promise<bigint> {
  const onchain = await deps.router.orderReserve(chainId, r.pay_to as Address, messageOf(r).orderId);
  const left = onchain - (await refundsRepo.inFlightAmount(deps.db, r.order_id, r.id));
  return left > 0n ? left : 0n;
}

/** The reserve no longer covers it (another refund spent it first): the platform or merchant must fund the rest. */
async function toRequiresFunding(deps: SubmitRefundDeps, r: RefundRow, reserve: bigint) {
  const portion = reserve < r.amount ? reserve : r.amount;
  const t = REFUND_TRANSITIONS.need_funding;
  const updated = await refundsRepo.update(deps.db, r.id, t.from, {
    state: t.to, reserve_portion: portion, funding_required: r.amount - portion,
    tx_hash: null, submitted_at: null, submit_lease_until: null, next_attempt_at: null,
  });
  if (updated) deps.logger.info({ refund_id: r.id, funding_required: updated.funding_required.toString() }, 'refund now requires funding');
}

/** One submission: the refund row locked, still due, enqueued with its attempt counted, in one transaction. */
async function enqueue(deps: SubmitRefundDeps, r: RefundRow, chainId: number) {
  const calldata = encodeFunctionData({ abi: paymentRouterAbi, functionName: 'refund', args: [messageOf(r), r.signature as Hex] });
  await deps.db.transaction().execute(async (tx) => {
    const row = await refundsRepo.lockById(tx, r.id);
    if (!row || row.state !== 'pending' || row.operator_tx_id || row.cancel_requested_at) return;
    const intent = await enqueueOperatorTx(tx, { chainId, purpose: 'refund', refId: r.id, to: r.pay_to as Hex, calldata });
    await refundsRepo.update(tx, r.id, [row.state], { operator_tx_id: intent.id, attempts: row.attempts + 1, submitted_at: deps.clock.now(), submit_lease_until: null, next_attempt_at: null });
  });
  deps.logger.info({ refund_id: r.id, attempt: r.attempts + 1 }, 'refund handed to the operator sender');
}
