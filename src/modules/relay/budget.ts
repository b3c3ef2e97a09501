import type { PublicClient } from 'viem';
import { AppError } from '../../lib/errors.js';
import { recordAlert } from '../alerts/service.js';
import { DEFAULT_SENDER_OPTIONS } from '../operator-txs/types.js';
import { secondsToNextDay, utcDay, type RelayDeps } from './context.js';
import { latestFees } from './latest-block.js';
import { relayRepo } from './repo.js';

/**
 * The most a relay may bid per gas: twice the node's max fee now (room for six blocks of rising base fee), at
 * most the sender's own cap. The relay reserves gas limit × this of the relayer's day, and the sender never
 * signs it (nor a replacement) above it.
 */
export async function relayFeeCap(client: PublicClient): Promise<bigint> {
  const doubled = (await latestFees(client)).maxFeePerGas * 2n;
  return doubled < DEFAULT_SENDER_OPTIONS.maxFeePerGas ? doubled : DEFAULT_SENDER_OPTIONS.maxFeePerGas;
}

/** Whether the relayer's day on this chain has less left than it needs: all of it reserved or spent, or less than a reservation it refused today. */
export function budgetSpent(budget: bigint, day: { reserved: bigint; spent: bigint; refused: bigint | null }): boolean {
  const left = budget - day.reserved - day.spent;
  return left <= 0n || (day.refused !== null && left < day.refused);
}

/** Advisory, before anything is simulated: a spent day is 503 at once (the accept decides for real). */
export async function checkBudget(deps: RelayDeps, chainId: number, now: bigint): Promise<void> {
  if (budgetSpent(deps.config.relayerDailyBudgetWei, await relayRepo.budgetDay(deps.db, chainId, utcDay(now)))) throw unavailable(now);
}

/**
 * The day could not take this reservation: noted, an alert raised the first time that day (chain_alerts row
 * `relayer_budget_exhausted` and an ALERT log line), and 503 gasless_unavailable with Retry-After until the next UTC day.
 */
export async function budgetRefused(deps: RelayDeps, chainId: number, now: bigint, wei: bigint): Promise<AppError> {
  const day = utcDay(now);
  if (await relayRepo.budgetRefused(deps.db, chainId, day, wei)) {
    const budget = await relayRepo.budgetDay(deps.db, chainId, day);
    const detail = { day, budget_wei: deps.config.relayerDailyBudgetWei, reserved_wei: budget.reserved, spent_wei: budget.spent, refused_wei: wei };
    await recordAlert(deps.db, chainId, 'relayer_budget_exhausted', detail);
    deps.logger.error({ chain_id: chainId, ...detail, budget_wei: detail.budget_wei.toString(), reserved_wei: detail.reserved_wei.toString(), spent_wei: detail.spent_wei.toString(), refused_wei: wei.toString() },
      'ALERT: the relayer\'s daily budget is spent; gasless payment is off until the next UTC day (RELAYER_DAILY_BUDGET_WEI)');
  }
  return unavailable(now);
}

function unavailable(now: bigint): AppError {
  const retry = secondsToNextDay(now);
  return new AppError('gasless_unavailable', `The relayer's budget for today is spent; gasless payment resumes in ${retry} s (next UTC day, chain clock). Pay another way.`, undefined, { 'Retry-After': String(retry) });
}
