import { sql, type Updateable } from 'kysely';
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { depositFactoryAbi } from '../../chain/artifacts/DepositFactory.js';
import { depositTermsOf } from '../../chain/deposit-terms.js';
import { payOrderFromJson } from '../../chain/eip712.js';
import type { Executor } from '../../db/client.js';
import type { DepositsTable } from '../../db/schema.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import type { OrderRow } from '../orders/repo.js';
import type { DepositsDeps } from './deps.js';
import { depositsRepo, type DepositRow } from './repo.js';
import { utcDay } from '../relay/context.js';
import { relayRepo } from '../relay/repo.js';

/** What the clone holds now, from what the indexer saw: in, minus returned, minus the amount if it paid the order. */
export function heldBy(dep: DepositRow, order: OrderRow): bigint {
  const paidOut = order.paid_by?.toLowerCase() === dep.address ? order.amount : 0n;
  const held = order.amount_received - dep.amount_returned - paidOut;
  return held > 0n ? held : 0n;
}

/**
 * Whether the relayer should sweep now (chain time `at`): to pay (enough arrived, the deposit's deadline not passed,
 * the order not paid elsewhere) or to return (the order is paid or over, or the deadline passed). Underpaid before the
 * deadline: wait for a top-up.
 */
export function sweepReason(dep: DepositRow, order: OrderRow, held: bigint, at: Date): 'pay' | 'return' | null {
  if (held === 0n) return null;
  const late = BigInt(Math.floor(at.getTime() / 1000)) > dep.deadline;
  const open = order.state === 'pending_payment' || order.state === 'expired';
  if (open && !late) return held >= order.amount ? 'pay' : null;
  return 'return';
}

/**
 * Chain time for a sweep decision made outside a log (order follow-up, relayer outcome): the later of the service's
 * clock and the chain's (anvil or a devnet may run ahead of the wall), never the wall clock alone.
 */
export function chainTime(deps: Pick<DepositsDeps, 'clock' | 'chains'>, chainId: number, at?: Date): Date {
  const ms = Math.max(at?.getTime() ?? 0, deps.clock.now().getTime(), deps.chains.get(chainId).clock.now().getTime());
  return new Date(ms);
}

const secondsOf = (at: Date) => BigInt(Math.floor(at.getTime() / 1000));
const nextDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));

/**
 * One sweep intent at a time per deposit (sweep_pending), sent by the relayer as factory.deployAndSweep (deploy is
 * idempotent, so the same call serves a deployed clone). Bounded, in this order: never below DEPOSIT_MIN_SWEEP_AMOUNT
 * (dust waits for a top-up or for anyone's sweep), not while the relayer's day on the chain is spent
 * (RELAYER_DAILY_BUDGET_WEI, shared with gasless relays), at most DEPOSIT_SWEEPS_PER_PLATFORM_PER_DAY per platform per
 * UTC day of the chain clock. A refusal is recorded on the deposit (sweep_refused); one by a limit of the day is tried
 * again by the deposits pass the next day, and short funds waiting for the deposit's own deadline once it passes
 * (next_sweep_at, retry-pass.ts).
 */
export async function maybeSweep(deps: Pick<DepositsDeps, 'config' | 'logger'>, tx: Executor, dep: DepositRow, order: OrderRow, at: Date): Promise<boolean> {
  if (dep.sweep_pending) return false;
  const held = heldBy(dep, order);
  const reason = sweepReason(dep, order, held, at);
  const set = (v: Updateable<DepositsTable>) => tx.updateTable('deposits').set(v).where('order_id', '=', dep.order_id).execute();
  if (!reason) {
    await set({ next_sweep_at: held > 0n ? new Date((Number(dep.deadline) + 1) * 1000) : null });
    return false;
  }
  const refuse = async (why: string, retryAt: Date | null) => {
    await set({ sweep_refused: why, next_sweep_at: retryAt });
    deps.logger.info({ order_id: order.id, held: held.toString(), why }, 'deposit sweep refused for now');
    return false;
  };
  if (held < deps.config.depositMinSweep) return refuse(`dust: holds ${held}, below DEPOSIT_MIN_SWEEP_AMOUNT`, null);
  const day = utcDay(secondsOf(at));
  const relayer = await relayRepo.budgetDay(tx, dep.chain_id, day);
  if (relayer.reserved + relayer.spent >= deps.config.relayerDailyBudgetWei) {
    return refuse('relayer_budget: RELAYER_DAILY_BUDGET_WEI is spent for the day', nextDay(at));
  }
  if (!await depositsRepo.takeSweepSlot(tx, dep.platform_id, day, deps.config.depositSweepsPerPlatformPerDay)) {
    return refuse('platform_cap: DEPOSIT_SWEEPS_PER_PLATFORM_PER_DAY reached', nextDay(at));
  }
  const terms = depositTermsOf(payOrderFromJson(order.eip712 as never), dep.deadline);
  await enqueueOperatorTx(tx, {
    chainId: dep.chain_id, purpose: 'deposit_sweep', refId: dep.order_id, to: dep.factory as Address, key: 'relayer',
    calldata: encodeFunctionData({ abi: depositFactoryAbi, functionName: 'deployAndSweep', args: [terms, dep.refund_to as Address, dep.signature as Hex] }),
  });
  await tx.updateTable('deposits').set({ sweep_pending: true, sweeps_sent: sql`sweeps_sent + 1`, sweep_refused: null, next_sweep_at: null }).where('order_id', '=', dep.order_id).execute();
  return true;
}

/** Failed sends in a row that are tried again at once (a race with the deadline changes the reason to return). */
export const IMMEDIATE_RETRIES = 3;
/** Failed sends in a row after which the relayer stops; the funds wait for anyone's sweep (docs/deposits.md). */
export const MAX_SWEEP_FAILURES = 10;
/** The wait before a later try: 5 min, doubling, at most 6 h (about 10 h from the first failure to the last try). */
export const retryDelayMs = (failures: number) => Math.min(5 * 60_000 * 2 ** Math.max(0, failures - IMMEDIATE_RETRIES), 6 * 3_600_000);

/**
 * The relayer's outcome of a sweep: what it cost joins the relayer's and the platform's day; the pending flag clears.
 * A failed one is sent again while the reason to sweep holds: at once for the first IMMEDIATE_RETRIES failures in a
 * row, then by the deposits pass after retryDelayMs, never after MAX_SWEEP_FAILURES.
 */
export async function onSweepOutcome(deps: Pick<DepositsDeps, 'config' | 'logger' | 'clock' | 'chains'>, tx: Executor, o: OperatorTxOutcome): Promise<void> {
  const dep = await depositsRepo.byOrderForUpdate(tx, o.refId);
  if (!dep) return;
  const at = chainTime(deps, dep.chain_id);
  if (o.gasUsed !== null && o.effectiveGasPrice !== null) {
    await depositsRepo.chargeSweep(tx, { chainId: dep.chain_id, platformId: dep.platform_id, orderId: dep.order_id, day: utcDay(secondsOf(at)), wei: o.gasUsed * o.effectiveGasPrice });
  }
  if (o.outcome === 'success') {
    await tx.updateTable('deposits').set({ sweep_pending: false, sweep_failures: 0 }).where('order_id', '=', dep.order_id).execute();
    return;
  }
  const failures = dep.sweep_failures + 1;
  const last = failures >= MAX_SWEEP_FAILURES;
  await tx.updateTable('deposits').set({
    sweep_pending: false, sweep_failures: failures, sweep_refused: `failed: ${o.outcome} ${o.error ?? ''}`.trim(),
    next_sweep_at: failures < IMMEDIATE_RETRIES || last ? null : new Date(at.getTime() + retryDelayMs(failures)),
  }).where('order_id', '=', dep.order_id).execute();
  deps.logger.warn({ order_id: o.refId, outcome: o.outcome, error: o.error, failures }, last ? 'deposit sweep failed; the relayer stops trying (anyone\'s sweep returns the funds)' : 'deposit sweep failed');
  if (failures >= IMMEDIATE_RETRIES) return;
  const fresh = (await depositsRepo.byOrderForUpdate(tx, o.refId))!;
  await maybeSweep(deps, tx, fresh, await depositsRepo.order(tx, o.refId), at);
}
