import type { Address } from 'viem';
import type { Tx } from '../../db/client.js';
import { depositEventKey, ordinals, routerEventKey, transferEventKey, type DepositLog, type OrderPaidEvent, type RouterLog, type TransferLog } from './events.js';
import type { RangeRead } from './fetch-range.js';
import { matchTransfers } from './match-transfers.js';
import { dispatch, paidEventOf } from './dispatch.js';
import { indexerRepo } from './repo.js';

import type { ApplyDeps } from './apply-deps.js';
export type { ApplyDeps } from './apply-deps.js';

/** A run of consecutive OrderPaid logs is applied this many at a time, each batch a handful of statements. */
export const PAID_BATCH = 2_000;

type Item = { kind: 'router'; log: RouterLog; key: string; funder?: Address } | { kind: 'transfer'; log: TransferLog; key: string } | { kind: 'deposit'; log: DepositLog; key: string };

const onchainIdOf = (log: RouterLog): string | null => {
  const a = log.args as Record<string, unknown>;
  return (a.orderId ?? a.refundId ?? a.batchId ?? a.permissionHash ?? null) as string | null;
};

/** Router logs and unmatched transfers of a range, each with its event key, in chain order. */
export function itemsOf(read: RangeRead, usdc: Address): Item[] {
  const excess = ordinals(read.logs, (l) => (l.eventName === 'ExcessRecovered' ? `${l.args.token}|${l.args.to}|${l.args.amount}` : l.eventName));
  const { unmatched, funders } = matchTransfers(read.transfers, read.logs, usdc);
  const items: Item[] = read.logs.map((log, i) => ({ kind: 'router', log, key: routerEventKey(log, excess[i]!), funder: funders.get(log) }));
  const n = ordinals(read.transfers, (t) => `${t.args.from}|${t.args.to}|${t.args.value}`);
  const keys = new Map(read.transfers.map((t, i) => [t, transferEventKey(t, n[i]!)]));
  for (const t of unmatched) items.push({ kind: 'transfer', log: t, key: keys.get(t)! });
  const d = ordinals(read.deposits, (l) => `${l.eventName}|${l.address}|${Object.values(l.args).join('|')}`);
  read.deposits.forEach((log, i) => items.push({ kind: 'deposit', log, key: depositEventKey(log, d[i]!) }));
  return items.sort((a, b) => (a.log.blockNumber === b.log.blockNumber ? a.log.logIndex - b.log.logIndex : a.log.blockNumber < b.log.blockNumber ? -1 : 1));
}

type PaidItem = { kind: 'router'; log: Extract<RouterLog, { eventName: 'OrderPaid' }>; key: string };
const isPaid = (item: Item | undefined): item is PaidItem => item?.kind === 'router' && item.log.eventName === 'OrderPaid';

/**
 * Applies a range's items once each (by event key), inside the transaction that moves the cursor, in chain
 * order. Runs of OrderPaid (the bulk of any backlog) go set-based, PAID_BATCH at a time; every other event
 * goes one by one through its handler (dispatch.ts), so an event that depends on an earlier one of the same range
 * (a refund of an order paid just before) sees it applied. Returns how many were new.
 */
export async function applyItems(tx: Tx, deps: ApplyDeps, chainId: number, read: RangeRead, usdc: Address): Promise<number> {
  const items = itemsOf(read, usdc);
  const size = deps.batchSize ?? PAID_BATCH;
  let n = 0;
  for (let i = 0; i < items.length;) {
    if (isPaid(items[i])) {
      const run: PaidItem[] = [];
      while (run.length < size && isPaid(items[i])) run.push(items[i++] as PaidItem);
      n += await applyPaidRun(tx, deps, chainId, run, read);
      deps.faults?.afterBatch?.(chainId, n);
      continue;
    }
    const item = items[i++]!;
    const blockTime = read.headers.get(item.log.blockNumber)!.time;
    const fresh = item.kind === 'router'
      ? await applyRouterLog(tx, deps, chainId, item.log, item.key, blockTime, item.funder ?? null)
      : item.kind === 'deposit' ? await applyDepositLog(tx, deps, chainId, item.log, item.key, blockTime)
      : await applyTransfer(tx, deps, chainId, item.log, item.key, blockTime);
    if (!fresh) continue;
    deps.metrics.indexedLogs.inc({ chain_id: String(chainId), event: item.kind === 'router' ? item.log.eventName : item.kind === 'deposit' ? `Deposit${item.log.eventName}` : 'UnmatchedTransfer' });
    n++;
  }
  return n;
}

/** One statement records the run's logs (the new keys come back), then the OrderPaid handler (orders' applyPaidMany) applies the new ones in bulk. */
async function applyPaidRun(tx: Tx, deps: ApplyDeps, chainId: number, run: PaidItem[], read: RangeRead): Promise<number> {
  const fresh = await indexerRepo.recordLogs(tx, chainId, {
    txHash: run.map((r) => r.log.transactionHash), logIndex: run.map((r) => r.log.logIndex), block: run.map((r) => r.log.blockNumber),
    blockHash: run.map((r) => r.log.blockHash), eventName: run.map(() => 'OrderPaid'), onchainId: run.map((r) => r.log.args.orderId), eventKey: run.map((r) => r.key),
  });
  const events: OrderPaidEvent[] = [];
  for (const { log, key } of run) {
    if (!fresh.delete(key)) continue; // applied before (or twice in this run: once)
    events.push(paidEventOf(chainId, log, read.headers.get(log.blockNumber)!.time));
  }
  if (events.length > 0) await deps.handlers.OrderPaid(tx, events);
  if (events.length > 0) deps.metrics.indexedLogs.inc({ chain_id: String(chainId), event: 'OrderPaid' }, events.length);
  return events.length;
}

async function applyRouterLog(tx: Tx, deps: ApplyDeps, chainId: number, log: RouterLog, key: string, blockTime: Date, funder: Address | null) {
  const fresh = await indexerRepo.recordLog(tx, {
    chain_id: chainId, tx_hash: log.transactionHash, log_index: log.logIndex, block_number: log.blockNumber,
    block_hash: log.blockHash, event_name: log.eventName, onchain_id: onchainIdOf(log), event_key: key,
  });
  if (fresh) await dispatch(tx, deps, chainId, log, blockTime, funder);
  return fresh;
}

/** A deposit log is recorded once (chain_logs, by meaning), then applied by the deposits module. */
async function applyDepositLog(tx: Tx, deps: ApplyDeps, chainId: number, log: DepositLog, key: string, blockTime: Date) {
  const fresh = await indexerRepo.recordLog(tx, {
    chain_id: chainId, tx_hash: log.transactionHash, log_index: log.logIndex, block_number: log.blockNumber,
    block_hash: log.blockHash, event_name: `Deposit${log.eventName}`, onchain_id: null, event_key: key,
  });
  if (fresh && deps.deposits) await deps.deposits.apply(tx, chainId, log, blockTime);
  return fresh;
}

/**
 * An unmatched transfer is recorded once. When its sender and value match an open verified x402 authorization it may
 * be that authorization front-run: its receipt is read after this range commits (read-due-receipts.ts, a bounded
 * number per pass) and it is alerted only if no authorization claims it. Every other one is alerted now, with no
 * RPC call: dust from anyone costs the indexer a row, not a receipt read.
 */
async function applyTransfer(tx: Tx, deps: ApplyDeps, chainId: number, t: TransferLog, key: string, blockTime: Date) {
  const seen = { chainId, token: t.address, from: t.args.from, value: t.args.value, blockTime };
  const due = deps.authorizedTransfers ? await deps.authorizedTransfers.candidate(tx, seen) : false;
  const row = {
    chain_id: chainId, token: t.address, from_address: t.args.from, value: t.args.value, tx_hash: t.transactionHash,
    block_number: t.blockNumber, block_time: blockTime, log_index: t.logIndex, event_key: key, receipt_due: due,
  };
  if (!(await indexerRepo.recordUnmatchedTransfer(tx, row))) return false;
  if (!due) await alertUnmatched(tx, deps, chainId, t.address, t.args.from, t.args.value, t.transactionHash, t.blockNumber);
  return true;
}

/** USDC sent straight to the router that nothing claimed: an alert for the operator. */
export async function alertUnmatched(tx: Tx, deps: Pick<ApplyDeps, 'logger'>, chainId: number, token: string, from: string, value: bigint, txHash: string, blockNumber: bigint) {
  await indexerRepo.alert(tx, chainId, 'unmatched_transfer', { token, from, value, tx_hash: txHash, block_number: blockNumber });
  deps.logger.warn({ chain_id: chainId, tx_hash: txHash, from, value: value.toString() }, 'USDC sent straight to the router (no order or refund pulled it)');
}
