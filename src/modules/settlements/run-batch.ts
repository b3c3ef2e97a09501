import { encodeFunctionData, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { toBytes32Id } from '../../chain/eip712.js';
import { newId } from '../../lib/ids.js';
import { describeError } from '../../lib/redact-urls.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { SettlementsDeps } from './deps.js';
import { settlementsRepo } from './repo.js';

/** The router's MAX_BATCH_SIZE. */
export const MAX_BATCH_SIZE = 100;
/** An order whose release the token refused (e.g. a blocklisted merchant) is retried at most this often. */
const RELEASE_RETRY_MS = 86_400_000;
/** Batches built per chain per pass (each ≤ MAX_BATCH_SIZE orders). */
const MAX_BATCHES_PER_PASS = 10;

const settleBatchCall = (batchOnchainId: Hex, orderOnchainIds: Hex[]) =>
  encodeFunctionData({ abi: paymentRouterAbi, functionName: 'settleBatch', args: [batchOnchainId, orderOnchainIds] });

/**
 * Worker pass, per configured chain: batch the orders whose on-chain reserve hold (releaseAfter, recorded by
 * the router at payment) is before the latest block's timestamp. The operator sender sends them.
 */
export async function runSettlementBatches(deps: SettlementsDeps): Promise<void> {
  if (!deps.router.hasOperator()) return;
  for (const rt of deps.chains.list()) {
    await runChain(deps, rt.chainId).catch((err: unknown) => deps.logger.warn({ chain_id: rt.chainId, err: describeError(err) }, 'settlement pass failed'));
  }
}

async function runChain(deps: SettlementsDeps, chainId: number) {
  await adoptLegacy(deps, chainId);
  const chainNow = await deps.router.chainNow(chainId);
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const built = await buildBatch(deps, chainId, chainNow);
    if (!built?.full) break;
  }
}

/**
 * Builds one batch in one transaction: the settlement row, its items, orders.settlement_id (so an order is
 * never in two live batches) and the settleBatch intent for the operator sender. Only orders whose on-chain
 * hold (OrderPaid.releaseAfter) has passed on the chain clock. Returns null when nothing is due.
 */
async function buildBatch(deps: SettlementsDeps, chainId: number, chainNow: Date) {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    const due = await settlementsRepo.lockDue(tx, chainId, chainNow, new Date(now.getTime() - RELEASE_RETRY_MS), MAX_BATCH_SIZE);
    if (due.length === 0) return null;
    // A batch goes to one router: the one holding those orders' reserves (normally there is only one).
    const batch = due.filter((o) => o.pay_to === due[0]!.pay_to);
    const id = newId('stl');
    const onchainId = toBytes32Id(id);
    const intent = await enqueueOperatorTx(tx, {
      chainId, purpose: 'settlement', refId: id, to: batch[0]!.pay_to as Hex, calldata: settleBatchCall(onchainId, batch.map((o) => o.onchain_id as Hex)),
    });
    const settlement = await settlementsRepo.insert(tx, {
      id, chain_id: chainId, onchain_id: onchainId, state: 'submitted', order_count: batch.length, operator_tx_id: intent.id, submitted_at: now,
      total: batch.reduce((sum, o) => sum + o.reserve_remaining, 0n),
    });
    await settlementsRepo.insertItems(tx, batch.map((o) => ({
      settlement_id: id, order_id: o.id, platform_id: o.platform_id, amount: o.reserve_remaining, state: 'included' as const, updated_at: now,
    })));
    await settlementsRepo.linkOrders(tx, id, batch.map((o) => o.id), now);
    deps.logger.info({ settlement_id: id, orders: batch.length }, 'settlement batch handed to the operator sender');
    return { settlement, full: due.length === MAX_BATCH_SIZE };
  });
}

/**
 * A batch built before the operator sender existed (deployed mid-flight): its settleBatch is enqueued under
 * the same batch id. If the earlier send landed, the router refuses it (BatchAlreadySettled) and the indexer
 * confirms the batch; nothing moves twice.
 */
async function adoptLegacy(deps: SettlementsDeps, chainId: number) {
  await deps.db.transaction().execute(async (tx) => {
    for (const s of await settlementsRepo.lockLegacyOpen(tx, chainId, 20)) {
      const included = await settlementsRepo.includedOnchainIds(tx, s.id);
      if (included.length === 0) continue;
      const intent = await enqueueOperatorTx(tx, {
        chainId, purpose: 'settlement', refId: s.id, to: included[0]!.pay_to as Hex, calldata: settleBatchCall(s.onchain_id as Hex, included.map((i) => i.onchain_id as Hex)),
      });
      await settlementsRepo.update(tx, s.id, ['submitted'], { operator_tx_id: intent.id });
    }
  });
}
