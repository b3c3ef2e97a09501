import { encodeFunctionData, type Address, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { toBytes32Id } from '../../chain/eip712.js';
import type { Config } from '../../config.js';
import type { Db, Tx } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { recordAlert } from '../alerts/service.js';
import type { ChainsService } from '../chains/service.js';
import { describeError } from '../../lib/redact-urls.js';
import { emitEvent } from '../events/service.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import { settlementsRepo, type ItemRow } from './repo.js';
import type { RouterClient } from './router-client.js';
import { serializeSettlement } from './serialize.js';
import { canMove } from '../../lib/transitions.js';
import { SETTLEMENT_ITEM_TRANSITIONS as ITEM, SETTLEMENT_TRANSITIONS } from './state.js';

/** The router's MAX_BATCH_SIZE. */
export const MAX_BATCH_SIZE = 100;
/** An order whose release the token refused (e.g. a blocklisted merchant) is retried at most this often. */
const RELEASE_RETRY_MS = 86_400_000;
/** Batches built per chain per pass (each ≤ MAX_BATCH_SIZE orders). */
const MAX_BATCHES_PER_PASS = 10;

export type SettlementsDeps = { db: Db; config: Config; chains: ChainsService; router: RouterClient; logger: Logger };

export type ReserveReleaseLog = { chainId: number; orderOnchainId: Hex; batchOnchainId: Hex; merchant: Address; amount: bigint; txHash: Hex };
export type BatchSettledLog = { chainId: number; batchOnchainId: Hex; orderCount: bigint; totalReleased: bigint; txHash: Hex; blockTime: Date };

export function createSettlementsService(deps: SettlementsDeps) {
  const { db, chains, router, logger } = deps;

  /**
   * Builds one batch in one transaction: the settlement row, its items, orders.settlement_id (so an order is
   * never in two live batches) and the settleBatch intent for the operator sender. Only orders whose
   * on-chain hold (OrderPaid.releaseAfter) has passed on the chain clock. Returns null when nothing is due.
   */
  async function buildBatch(chainId: number, chainNow: Date) {
    return db.transaction().execute(async (tx) => {
      const due = await settlementsRepo.lockDue(tx, chainId, chainNow, new Date(Date.now() - RELEASE_RETRY_MS), MAX_BATCH_SIZE);
      if (due.length === 0) return null;
      // A batch goes to one router: the one holding those orders' reserves (normally there is only one).
      const batch = due.filter((o) => o.pay_to === due[0]!.pay_to);
      const id = newId('stl');
      const onchainId = toBytes32Id(id);
      const intent = await enqueueOperatorTx(tx, {
        chainId, purpose: 'settlement', refId: id, to: batch[0]!.pay_to as Hex,
        calldata: encodeFunctionData({ abi: paymentRouterAbi, functionName: 'settleBatch', args: [onchainId, batch.map((o) => o.onchain_id as Hex)] }),
      });
      const settlement = await settlementsRepo.insert(tx, {
        id, chain_id: chainId, onchain_id: onchainId, state: 'submitted', order_count: batch.length, operator_tx_id: intent.id, submitted_at: new Date(),
        total: batch.reduce((sum, o) => sum + o.reserve_remaining, 0n),
      });
      await settlementsRepo.insertItems(tx, batch.map((o) => ({
        settlement_id: id, order_id: o.id, platform_id: o.platform_id, amount: o.reserve_remaining, state: 'included' as const,
      })));
      await settlementsRepo.linkOrders(tx, id, batch.map((o) => o.id));
      logger.info({ settlement_id: id, orders: batch.length }, 'settlement batch handed to the operator sender');
      return { settlement, full: due.length === MAX_BATCH_SIZE };
    });
  }

  /**
   * A batch built before the operator sender existed (deployed mid-flight): its settleBatch is enqueued under
   * the same batch id. If the earlier send landed, the router refuses it (BatchAlreadySettled) and the
   * indexer confirms the batch; nothing moves twice.
   */
  async function adoptLegacy(chainId: number) {
    await db.transaction().execute(async (tx) => {
      for (const s of await settlementsRepo.lockLegacyOpen(tx, chainId, 20)) {
        const included = await settlementsRepo.includedOnchainIds(tx, s.id);
        if (included.length === 0) continue;
        const intent = await enqueueOperatorTx(tx, {
          chainId, purpose: 'settlement', refId: s.id, to: included[0]!.pay_to as Hex,
          calldata: encodeFunctionData({ abi: paymentRouterAbi, functionName: 'settleBatch', args: [s.onchain_id as Hex, included.map((i) => i.onchain_id as Hex)] }),
        });
        await settlementsRepo.update(tx, s.id, ['submitted'], { operator_tx_id: intent.id });
      }
    });
  }

  async function runChain(chainId: number) {
    await adoptLegacy(chainId);
    const chainNow = await router.chainNow(chainId);
    for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
      const built = await buildBatch(chainId, chainNow);
      if (!built?.full) break;
    }
  }

  // ---- indexer hooks (inside the indexer's transaction; they never throw for bad data: alerts instead) ----
  // Lock order everywhere: settlement row, then order rows (onOutcome does the same).

  async function applyReserveReleased(tx: Tx, e: ReserveReleaseLog): Promise<void> {
    const s = await settlementsRepo.lockByOnchainId(tx, e.batchOnchainId);
    const order = await settlementsRepo.lockOrderByOnchainId(tx, e.chainId, e.orderOnchainId);
    if (!s) await recordAlert(tx, e.chainId, 'unknown_settlement', { batch_onchain_id: e.batchOnchainId, order_onchain_id: e.orderOnchainId, tx_hash: e.txHash });
    if (!order) {
      await recordAlert(tx, e.chainId, 'unknown_order_release', { order_onchain_id: e.orderOnchainId, amount: e.amount, tx_hash: e.txHash });
      logger.error({ chain_id: e.chainId, order_onchain_id: e.orderOnchainId }, 'ALERT: reserve released for an unknown order');
      return;
    }
    let reserve = order.reserve_remaining - e.amount;
    if (reserve < 0n) {
      await recordAlert(tx, e.chainId, 'reserve_out_of_sync', { order_id: order.id, reserve_remaining: order.reserve_remaining, released: e.amount, tx_hash: e.txHash });
      reserve = 0n;
    }
    await settlementsRepo.setOrderReserve(tx, order.id, reserve);
    if (!s) return;
    const items = await settlementsRepo.setItems(tx, s.id, ITEM.release.from, { state: ITEM.release.to, released_amount: e.amount }, order.id);
    if (items.length === 0) await recordAlert(tx, e.chainId, 'release_not_in_batch', { settlement_id: s.id, order_id: order.id, tx_hash: e.txHash });
  }

  async function applyReserveReleaseFailed(tx: Tx, e: ReserveReleaseLog): Promise<void> {
    const s = await settlementsRepo.lockByOnchainId(tx, e.batchOnchainId);
    const order = await settlementsRepo.lockOrderByOnchainId(tx, e.chainId, e.orderOnchainId);
    await recordAlert(tx, e.chainId, 'reserve_release_failed', {
      order_id: order?.id ?? null, order_onchain_id: e.orderOnchainId, settlement_id: s?.id ?? null, merchant: e.merchant, amount: e.amount, tx_hash: e.txHash,
    });
    logger.error({ chain_id: e.chainId, order_id: order?.id, merchant: e.merchant }, 'ALERT: the token refused a reserve release; the reserve stays in the router');
    if (!s || !order) return;
    // The reserve stays recorded; the order leaves this batch so a later one retries (after RELEASE_RETRY_MS).
    await settlementsRepo.setItems(tx, s.id, ITEM.release_fail.from, { state: ITEM.release_fail.to }, order.id);
    await settlementsRepo.unlinkOrders(tx, s.id, [order.id]);
  }

  /**
   * Operator sender outcome of a settleBatch (purpose 'settlement'). Success or BatchAlreadySettled: the
   * indexer confirms it from BatchSettled. Any other refusal (simulation or mined revert): the batch fails
   * and its orders are unlinked so a later batch carries them.
   */
  async function onOutcome(tx: Tx, o: OperatorTxOutcome): Promise<void> {
    if (o.outcome === 'success' || o.error === 'BatchAlreadySettled') return;
    const reason = o.outcome === 'rejected' ? `router refused: ${o.error}` : `transaction ${o.txHash} reverted: ${o.error}`;
    const failed = await settlementsRepo.update(tx, o.refId, SETTLEMENT_TRANSITIONS.fail.from, { state: SETTLEMENT_TRANSITIONS.fail.to, error: reason.slice(0, 500) });
    if (!failed) return;
    await settlementsRepo.setItems(tx, o.refId, ITEM.batch_fail.from, { state: ITEM.batch_fail.to });
    await settlementsRepo.unlinkOrders(tx, o.refId);
    logger.warn({ settlement_id: o.refId, reason }, 'settlement batch failed; its orders will be retried');
  }

  async function applyBatchSettled(tx: Tx, e: BatchSettledLog): Promise<void> {
    const s = await settlementsRepo.lockByOnchainId(tx, e.batchOnchainId);
    if (!s) {
      await recordAlert(tx, e.chainId, 'unknown_settlement', { batch_onchain_id: e.batchOnchainId, order_count: e.orderCount, total: e.totalReleased, tx_hash: e.txHash });
      logger.error({ chain_id: e.chainId, batch_onchain_id: e.batchOnchainId }, 'ALERT: BatchSettled for an unknown batch');
      return;
    }
    if (!canMove(SETTLEMENT_TRANSITIONS, s.state, 'confirm')) return; // confirmed already
    if (s.state === 'failed') await recordAlert(tx, e.chainId, 'settlement_confirmed_after_failure', { settlement_id: s.id, error: s.error, tx_hash: e.txHash });
    const confirmed = (await settlementsRepo.update(tx, s.id, [s.state], {
      state: SETTLEMENT_TRANSITIONS.confirm.to, tx_hash: e.txHash, confirmed_at: e.blockTime, order_count: Number(e.orderCount), total: e.totalReleased, error: null,
    }))!;
    // Orders the router skipped had nothing left (a refund spent the reserve after the batch was built).
    await settlementsRepo.setItems(tx, s.id, ITEM.skip.from, { state: ITEM.skip.to });
    for (const platformId of await settlementsRepo.platformsOf(tx, s.id)) {
      const items = await settlementsRepo.items(tx, [s.id], platformId);
      await emitEvent(tx, { platformId, type: 'settlement.completed', data: { object: serializeSettlement(confirmed, items) } });
    }
  }

  return {
    onOutcome,
    applyReserveReleased,
    applyReserveReleaseFailed,
    applyBatchSettled,

    /**
     * One pass per configured chain: batch the orders whose on-chain reserve hold (releaseAfter, recorded by
     * the router at payment) is before the latest block's timestamp. The operator sender sends them.
     */
    async runOnce(): Promise<void> {
      if (!router.hasOperator()) return;
      for (const rt of chains.list()) {
        await runChain(rt.chainId).catch((err: unknown) => logger.warn({ chain_id: rt.chainId, err: describeError(err) }, 'settlement pass failed'));
      }
    },

    async list(platformId: string, q: { limit: number; cursor?: string | undefined }) {
      const rows = await settlementsRepo.listForPlatform(db, platformId, q.limit, decodeCursor(q.cursor));
      const items = await settlementsRepo.items(db, rows.map((r) => r.id), platformId);
      const by = new Map<string, ItemRow[]>();
      for (const i of items) by.set(i.settlement_id, [...(by.get(i.settlement_id) ?? []), i]);
      return toPage(rows, q.limit, (s) => serializeSettlement(s, by.get(s.id) ?? []));
    },

    async get(platformId: string, id: string) {
      const s = await settlementsRepo.findForPlatform(db, platformId, id);
      if (!s) throw notFound('settlement');
      return serializeSettlement(s, await settlementsRepo.items(db, [s.id], platformId));
    },
  };
}

export type SettlementsService = ReturnType<typeof createSettlementsService>;
