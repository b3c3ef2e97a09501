import { AppError } from '../../lib/errors.js';
import type { SubscriptionsDeps } from './deps.js';
import { subscriptionsRepo } from './repo.js';

/**
 * The most periods one move of the devnet's test clock may pass of any one subscription (36: three years of a
 * monthly plan, five weeks of a daily one), and of all the platform's subscriptions together. Each period passed is
 * a step of the move (chain time to the period's start, its charge sent, mined and confirmed at depth), so the
 * bounds bound the node's work one request can cause on the shared devnet.
 */
export const MAX_PERIODS_PER_MOVE = 36;
export const MAX_CHARGES_PER_MOVE = 120;

type Open = Awaited<ReturnType<typeof subscriptionsRepo.openOfPlatform>>[number];

/** Charges a move of chain time from `from` to `to` (unix s) would make: periods next_period … ⌊(to − start)/period⌋, within max_periods. */
export function chargesInMove(s: Pick<Open, 'start_at' | 'period_seconds' | 'max_periods' | 'next_period'>, to: number): number {
  const last = Math.floor((to - s.start_at!.getTime() / 1000) / s.period_seconds);
  const end = s.max_periods === null ? last : Math.min(last, s.max_periods - 1);
  return Math.max(0, end - s.next_period + 1);
}

/**
 * Refuses (422, nothing moved) a move to `to` that would charge more than MAX_PERIODS_PER_MOVE periods of one of the
 * platform's subscriptions, or MAX_CHARGES_PER_MOVE in all.
 */
export async function checkClockMove(deps: Pick<SubscriptionsDeps, 'db'>, platformId: string, to: number): Promise<void> {
  const open = await subscriptionsRepo.openOfPlatform(deps.db, platformId);
  let total = 0;
  for (const s of open) {
    const n = chargesInMove(s, to);
    if (n > MAX_PERIODS_PER_MOVE) {
      throw new AppError('validation_failed', `This move would pass ${n} periods of subscription ${s.id}; one move may pass at most ${MAX_PERIODS_PER_MOVE} periods of a subscription (move the clock in shorter steps).`, 'seconds');
    }
    total += n;
  }
  if (total > MAX_CHARGES_PER_MOVE) {
    throw new AppError('validation_failed', `This move would charge ${total} periods of the platform's subscriptions; one move may charge at most ${MAX_CHARGES_PER_MOVE} (move the clock in shorter steps).`, 'seconds');
  }
}

/**
 * Where the platform's billing stands for the test clock: `due` the earliest next charge (unix s) of a subscription
 * with nothing in flight, `inFlight` whether a charge is queued or sent and not yet confirmed or failed.
 */
export async function billingState(deps: Pick<SubscriptionsDeps, 'db'>, platformId: string): Promise<{ due: number | null; inFlight: boolean }> {
  const open = await subscriptionsRepo.openOfPlatform(deps.db, platformId);
  const due = open.filter((s) => s.charge_order_id === null && s.next_charge_at !== null).map((s) => Math.ceil(s.next_charge_at!.getTime() / 1000));
  return { due: due.length ? Math.min(...due) : null, inFlight: open.some((s) => s.charge_order_id !== null) };
}
