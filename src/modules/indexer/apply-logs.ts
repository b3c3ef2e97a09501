import type { Address } from 'viem';
import type { Tx } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import type { OrdersService } from '../orders/service.js';
import { ordinals, routerEventKey, transferEventKey, type RouterLog, type TransferLog } from './events.js';
import type { RangeRead } from './fetch-range.js';
import type { IndexerHooks } from './hooks.js';
import { unmatchedTransfers } from './match-transfers.js';
import { dispatch } from './dispatch.js';
import { indexerRepo } from './repo.js';

export type ApplyDeps = { orders: OrdersService; hooks: () => IndexerHooks; logger: Logger; metrics: Metrics };

type Item = { kind: 'router'; log: RouterLog; key: string } | { kind: 'transfer'; log: TransferLog; key: string };

const onchainIdOf = (log: RouterLog): string | null => {
  const a = log.args as Record<string, unknown>;
  return (a.orderId ?? a.refundId ?? a.batchId ?? null) as string | null;
};

/** Router logs and unmatched transfers of a range, each with its event key, in chain order. */
export function itemsOf(read: RangeRead, usdc: Address): Item[] {
  const excess = ordinals(read.logs, (l) => (l.eventName === 'ExcessRecovered' ? `${l.args.token}|${l.args.to}|${l.args.amount}` : l.eventName));
  const items: Item[] = read.logs.map((log, i) => ({ kind: 'router', log, key: routerEventKey(log, excess[i]!) }));
  const n = ordinals(read.transfers, (t) => `${t.args.from}|${t.args.to}|${t.args.value}`);
  const keys = new Map(read.transfers.map((t, i) => [t, transferEventKey(t, n[i]!)]));
  for (const t of unmatchedTransfers(read.transfers, read.logs, usdc)) items.push({ kind: 'transfer', log: t, key: keys.get(t)! });
  return items.sort((a, b) => (a.log.blockNumber === b.log.blockNumber ? a.log.logIndex - b.log.logIndex : a.log.blockNumber < b.log.blockNumber ? -1 : 1));
}

/** Applies a range's items once each (by event key), inside the transaction that moves the cursor. Returns how many were new. */
export async function applyItems(tx: Tx, deps: ApplyDeps, chainId: number, read: RangeRead, usdc: Address): Promise<number> {
  let n = 0;
  for (const item of itemsOf(read, usdc)) {
    const blockTime = read.headers.get(item.log.blockNumber)!.time;
    const fresh = item.kind === 'router'
      ? await applyRouterLog(tx, deps, chainId, item.log, item.key, blockTime)
      : await applyTransfer(tx, deps, chainId, item.log, item.key, blockTime);
    if (!fresh) continue;
    deps.metrics.indexedLogs.inc({ chain_id: String(chainId), event: item.kind === 'router' ? item.log.eventName : 'UnmatchedTransfer' });
    n++;
  }
  return n;
}

async function applyRouterLog(tx: Tx, deps: ApplyDeps, chainId: number, log: RouterLog, key: string, blockTime: Date) {
  const fresh = await indexerRepo.recordLog(tx, {
    chain_id: chainId, tx_hash: log.transactionHash, log_index: log.logIndex, block_number: log.blockNumber,
    block_hash: log.blockHash, event_name: log.eventName, onchain_id: onchainIdOf(log), event_key: key,
  });
  if (fresh) await dispatch(tx, deps, chainId, log, blockTime);
  return fresh;
}

async function applyTransfer(tx: Tx, deps: ApplyDeps, chainId: number, t: TransferLog, key: string, blockTime: Date) {
  const row = {
    chain_id: chainId, token: t.address, from_address: t.args.from, value: t.args.value, tx_hash: t.transactionHash,
    block_number: t.blockNumber, block_time: blockTime, log_index: t.logIndex, event_key: key,
  };
  if (!(await indexerRepo.recordUnmatchedTransfer(tx, row))) return false;
  await indexerRepo.alert(tx, chainId, 'unmatched_transfer', { token: t.address, from: t.args.from, value: t.args.value, tx_hash: t.transactionHash, block_number: t.blockNumber });
  deps.logger.warn({ chain_id: chainId, tx_hash: t.transactionHash, from: t.args.from, value: t.args.value.toString() }, 'USDC sent straight to the router (no order or refund pulled it)');
  return true;
}
