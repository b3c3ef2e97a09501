/**
 * The refund worker. Every step is a short transaction; chain reads and sends happen outside any
 * transaction, so an embedded single-connection database is never held while waiting on an RPC.
 * The router's refundId guard makes any send at most once on chain, whatever happens here.
 */
import type { Address, Hex } from 'viem';
import { refundOrderFromJson, type RefundOrderJson } from '../../chain/eip712.js';
import type { Executor } from '../../db/client.js';
import type { RefundsDeps } from './service.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { revertOf } from '../settlements/router-client.js';

const LEASE_MS = 120_000;
/** A sent transaction the node no longer knows after this long was dropped: the refund is sent again. */
const DROPPED_AFTER_MS = 5 * 60_000;
/** Router errors after which this signed refund can never succeed. Anything else (pause, RPC) is retried. */
const PERMANENT = new Set(['InvalidSigner', 'OrderExpired', 'RefundExceedsOrder', 'OrderNotPaid', 'ZeroAmount', 'ZeroAddress']);

type WorkerDeps = RefundsDeps & { fail(tx: Executor, refund: RefundRow, reason: string): Promise<RefundRow | undefined> };

export function createRefundsWorker(deps: WorkerDeps) {
  const { db, chains, router, logger, fail } = deps;
  const chainOf = (r: RefundRow) => refundsRepo.chainIdOf(db, r.order_id);
  const messageOf = (r: RefundRow) => refundOrderFromJson(r.eip712 as Pick<RefundOrderJson, 'message'>);

  /**
   * Reserve the router will still have for this refund: its on-chain reserve minus what other refunds of
   * the order, sent and not yet indexed, will take first.
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
      tx_hash: null, submitted_at: null, submit_lease_until: null,
    });
    if (updated) logger.info({ refund_id: r.id, funding_required: updated.funding_required.toString() }, 'refund now requires funding');
  }

  /**
   * Fails open refunds whose deadline is before the chain time the indexer has fully applied: the router
   * refuses them from then on, and a completion before it would already have been indexed. Measured on the
   * chain clock, never the wall clock.
   */
  async function expireDue(chainId: number): Promise<number> {
    await router.chainNow(chainId); // also refreshes the clock used for new refunds' deadlines
    const cursor = await db.selectFrom('chain_cursors').select('last_block').where('chain_id', '=', chainId).executeTakeFirst();
    if (!cursor || cursor.last_block < 0n) return 0;
    const indexedUntil = await router.blockTime(chainId, cursor.last_block);
    const due = await refundsRepo.pastDeadline(db, chainId, indexedUntil, 100);
    for (const r of due) await db.transaction().execute((tx) => fail(tx, r, 'deadline_passed'));
    return due.length;
  }

  /** Sent refunds: a revert either needs funding now (reserve gone) or fails; a dropped transaction is sent again. */
  async function checkSent(r: RefundRow) {
    const chainId = await chainOf(r);
    const hash = r.tx_hash as Hex;
    const receipt = await router.receipt(chainId, hash);
    if (!receipt) {
      const stale = !r.submitted_at || Date.now() - r.submitted_at.getTime() > DROPPED_AFTER_MS;
      if (stale && !(await router.known(chainId, hash))) {
        await refundsRepo.update(db, r.id, ['pending'], { tx_hash: null, submitted_at: null, submit_lease_until: null });
        logger.warn({ refund_id: r.id, tx_hash: hash }, 'refund transaction dropped; it will be sent again');
      }
      return;
    }
    if (receipt.status === 'success') return; // the indexer completes it from the Refunded log
    // Someone else (anyone may submit a signed refund) may have executed it first: then ours reverted harmlessly.
    if (await router.refundUsed(chainId, r.pay_to as Address, messageOf(r).refundId)) return;
    const reserve = await reserveFor(r, chainId);
    if (reserve < r.amount) return toRequiresFunding(r, reserve);
    await db.transaction().execute((tx) => fail(tx, r, `transaction ${hash} reverted`));
  }

  async function send(r: RefundRow) {
    const chainId = await chainOf(r);
    const ro = messageOf(r);
    if (await router.refundUsed(chainId, r.pay_to as Address, ro.refundId)) return; // executed by someone: the indexer completes it
    const reserve = await reserveFor(r, chainId);
    if (reserve < r.amount) return toRequiresFunding(r, reserve);
    try {
      const hash = await router.sendRefund(chainId, r.pay_to as Address, ro, r.signature as Hex);
      await refundsRepo.update(db, r.id, ['pending'], { tx_hash: hash, submitted_at: new Date(), submit_lease_until: null });
      logger.info({ refund_id: r.id, tx_hash: hash }, 'refund sent by the operator');
    } catch (err) {
      const revert = revertOf(err);
      if (revert && PERMANENT.has(revert.errorName)) {
        await db.transaction().execute((tx) => fail(tx, r, `router refused: ${revert.message}`));
        return;
      }
      // Paused router, RPC trouble, a race on the reserve: the lease lapses and a later pass retries.
      logger.warn({ refund_id: r.id, err: revert?.message ?? (err as Error).message }, 'refund send failed; will retry');
    }
  }

  /** Runs `fn` on each item, logging (not throwing) per-item failures so one bad refund never blocks others. */
  async function each<T extends { id: string }>(items: T[], what: string, fn: (item: T) => Promise<unknown>) {
    for (const item of items) {
      await fn(item).catch((err: unknown) => logger.warn({ id: item.id, err: (err as Error).message }, `refund worker: ${what} failed`));
    }
  }

  return {
    async runOnce(): Promise<void> {
      await each(chains.list().map((c) => ({ id: String(c.chainId), chainId: c.chainId })), 'expiry', (c) => expireDue(c.chainId));
      await each(await refundsRepo.sent(db, 100), 'receipt check', checkSent);
      if (!router.hasOperator()) return;
      await each(await refundsRepo.claimUnsent(db, new Date(), LEASE_MS, 20), 'send', send);
    },
  };
}
