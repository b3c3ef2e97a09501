import { sql } from 'kysely';
import { encodeFunctionData, type Address, type Hex } from 'viem';
import { depositFactoryAbi } from '../../chain/artifacts/DepositFactory.js';
import { depositTermsOf } from '../../chain/deposit-terms.js';
import { payOrderFromJson } from '../../chain/eip712.js';
import type { Executor } from '../../db/client.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import type { OrderRow } from '../orders/repo.js';
import type { DepositsDeps } from './deps.js';
import type { DepositRow } from './repo.js';

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

const dayStart = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));

/**
 * One sweep intent at a time per deposit (sweep_pending), sent by the relayer as factory.deployAndSweep (deploy is
 * idempotent, so the same call serves a deployed clone). Bounded: never below DEPOSIT_MIN_SWEEP_AMOUNT, at most
 * DEPOSIT_SWEEPS_PER_PLATFORM_PER_DAY per platform per UTC day of the chain clock. A refusal leaves the funds in the
 * clone for anyone's sweep (docs/deposits.md); it is recorded on the deposit (sweep_refused).
 */
export async function maybeSweep(deps: Pick<DepositsDeps, 'config' | 'logger'>, tx: Executor, dep: DepositRow, order: OrderRow, at: Date): Promise<boolean> {
  if (dep.sweep_pending) return false;
  const held = heldBy(dep, order);
  const reason = sweepReason(dep, order, held, at);
  if (!reason) return false;
  const refuse = async (why: string) => {
    await tx.updateTable('deposits').set({ sweep_refused: why }).where('order_id', '=', dep.order_id).execute();
    deps.logger.info({ order_id: order.id, held: held.toString(), why }, 'deposit sweep refused: the funds wait for anyone\'s sweep');
    return false;
  };
  if (held < deps.config.depositMinSweep) return refuse(`held ${held} below DEPOSIT_MIN_SWEEP_AMOUNT`);
  const today = await sql<{ n: string }>`select count(*)::text as n from operator_txs t join deposits d on d.order_id = t.ref_id
    where t.purpose = 'deposit_sweep' and d.platform_id = ${dep.platform_id} and t.created_at >= ${dayStart(at)}`.execute(tx);
  if (Number(today.rows[0]?.n ?? 0) >= deps.config.depositSweepsPerPlatformPerDay) return refuse('DEPOSIT_SWEEPS_PER_PLATFORM_PER_DAY reached');
  const terms = depositTermsOf(payOrderFromJson(order.eip712 as never), dep.deadline);
  await enqueueOperatorTx(tx, {
    chainId: dep.chain_id, purpose: 'deposit_sweep', refId: dep.order_id, to: dep.factory as Address, key: 'relayer',
    calldata: encodeFunctionData({ abi: depositFactoryAbi, functionName: 'deployAndSweep', args: [terms, dep.refund_to as Address, dep.signature as Hex] }),
  });
  await tx.updateTable('deposits').set({ sweep_pending: true, sweeps_sent: sql`sweeps_sent + 1`, sweep_refused: null }).where('order_id', '=', dep.order_id).execute();
  return true;
}

/** Retries after a sweep that reverted or was refused in simulation (e.g. a race with the deadline), at most this many sends per deposit. */
export const MAX_SWEEPS = 5;

/** The relayer's outcome of a sweep: clear the pending flag; a failed one is sent again while the reason to sweep holds. */
export async function onSweepOutcome(deps: Pick<DepositsDeps, 'config' | 'logger' | 'clock' | 'chains'>, tx: Executor, o: OperatorTxOutcome): Promise<void> {
  await tx.updateTable('deposits').set({ sweep_pending: false }).where('order_id', '=', o.refId).execute();
  if (o.outcome === 'success') return;
  deps.logger.warn({ order_id: o.refId, outcome: o.outcome, error: o.error }, 'deposit sweep failed');
  const dep = await tx.selectFrom('deposits').selectAll().where('order_id', '=', o.refId).forUpdate().executeTakeFirst();
  const order = await tx.selectFrom('orders').selectAll().where('id', '=', o.refId).executeTakeFirst();
  if (dep && order && dep.sweeps_sent < MAX_SWEEPS) await maybeSweep(deps, tx, dep, order, chainTime(deps, dep.chain_id));
}
