/**
 * The refund worker. Every step is a short transaction; chain reads happen outside any transaction, so an
 * embedded single-connection database is never held while waiting on an RPC. Operator transactions go
 * through the operator sender's outbox (modules/operator-txs): the worker only enqueues them.
 */
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { refundOrderFromJson, type RefundOrderJson } from '../../chain/eip712.js';
import type { Executor } from '../../db/client.js';
import { describeError } from '../../lib/redact-urls.js';
import { indexedUntil } from '../indexer/repo.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import { requestRefundCancel } from './cancel.js';
import type { RefundsDeps } from './deps.js';
import { OPEN_STATES, refundsRepo, type RefundRow } from './repo.js';

/** A claimed refund is only read and enqueued (seconds); a claim left by a dead instance lapses after this. */
const LEASE_MS = 30_000;

type WorkerDeps = RefundsDeps & { fail(tx: Executor, refund: RefundRow, reason: string): Promise<RefundRow | undefined> };

export function createRefundsWorker(deps: WorkerDeps) {
  const { db, chains, router, logger, fail } = deps;
  const chainOf = (r: RefundRow) => refundsRepo.chainIdOf(db, r.order_id);
  const messageOf = (r: RefundRow) => refundOrderFromJson(r.eip712 as Pick<RefundOrderJson, 'message'>);

  /**
   * Reserve the router will still have for this refund: its on-chain reserve minus what other refunds of
   * the order, handed to the sender and not yet indexed, will take first.
   */
  async function reserveFor(r: RefundRow, chainId: number): Promise<bigint> {
    const onchain = await router.orderReserve(chainId, r.pay_to as Address, messageOf(r).orderId);
    const left = onchain - (await refundsRepo.inFlightAmount(db, r.order_id, r.id));
    return left > 0n ? left : 0n;
  }

  /** The reserve no longer covers it (another refund spent it first): the platform or merchant must fund the rest. */
  async function toRequiresFunding(r: RefundRow, reserve: bigint) {
    const portion = reserve < r.amount ? reserve : r.amount;
    const updated = await refundsRepo.update(db, r.id, ['pending'], {
      state: 'requires_funding', reserve_portion: portion, funding_required: r.amount - portion,
      tx_hash: null, submitted_at: null, submit_lease_until: null, next_attempt_at: null,
    });
    if (updated) logger.info({ refund_id: r.id, funding_required: updated.funding_required.toString() }, 'refund now requires funding');
  }

  /**
   * Fails open refunds whose deadline is before the chain time the indexer has fully applied: the router
   * refuses them from then on, and a completion before it would already have been indexed. Measured on the
   * chain clock, never the wall clock.
   */
  async function expireDue(chainId: number): Promise<number> {
    await router.chainNow(chainId); // keeps chains.clock, which signs new refunds' deadlines, up to date
    // The cursor block's time, stored by the indexer with the cursor (the order sweeper reads the same).
    const until = await indexedUntil(db, chainId);
    if (!until) return 0;
    const due = await refundsRepo.pastDeadline(db, chainId, until.time, 100);
    for (const r of due) await db.transaction().execute((tx) => fail(tx, r, 'deadline_passed'));
    return due.length;
  }

  /** One submission: the refund row locked, still due, enqueued with its attempt counted, in one transaction. */
  async function enqueue(r: RefundRow, chainId: number) {
    const calldata = encodeFunctionData({ abi: paymentRouterAbi, functionName: 'refund', args: [messageOf(r), r.signature as Hex] });
    await db.transaction().execute(async (tx) => {
      const row = await refundsRepo.lockById(tx, r.id);
      if (!row || row.state !== 'pending' || row.operator_tx_id || row.cancel_requested_at) return;
      const intent = await enqueueOperatorTx(tx, { chainId, purpose: 'refund', refId: r.id, to: r.pay_to as Hex, calldata });
      await refundsRepo.update(tx, r.id, ['pending'], { operator_tx_id: intent.id, attempts: row.attempts + 1, submitted_at: new Date(), submit_lease_until: null, next_attempt_at: null });
    });
    logger.info({ refund_id: r.id, attempt: r.attempts + 1 }, 'refund handed to the operator sender');
  }

  async function submit(r: RefundRow) {
    const chainId = await chainOf(r);
    if (await router.refundUsed(chainId, r.pay_to as Address, messageOf(r).refundId)) return; // executed or cancelled: the indexer resolves it
    const reserve = await reserveFor(r, chainId);
    if (reserve < r.amount) return toRequiresFunding(r, reserve);
    await enqueue(r, chainId);
  }

  /** A cancellation whose transaction ended without effect is asked again. */
  async function resendCancel(r: RefundRow) {
    await db.transaction().execute(async (tx) => {
      const row = await refundsRepo.lockById(tx, r.id);
      if (row && OPEN_STATES.includes(row.state) && !row.cancel_tx_id) await requestRefundCancel(tx, row, row.cancel_reason ?? 'cancelled');
    });
  }

  /** Runs `fn` on each item, logging (not throwing) per-item failures so one bad refund never blocks others. */
  async function each<T extends { id: string }>(items: T[], what: string, fn: (item: T) => Promise<unknown>) {
    for (const item of items) {
      await fn(item).catch((err: unknown) => logger.warn({ id: item.id, err: describeError(err) }, `refund worker: ${what} failed`));
    }
  }

  return {
    async runOnce(): Promise<void> {
      await each(chains.list().map((c) => ({ id: String(c.chainId), chainId: c.chainId })), 'expiry', (c) => expireDue(c.chainId));
      if (!router.hasOperator()) return;
      await each(await refundsRepo.cancelsToSend(db, 50), 'cancellation', resendCancel);
      await each(await refundsRepo.claimUnsent(db, new Date(), LEASE_MS, 20), 'submission', submit);
    },
  };
}
