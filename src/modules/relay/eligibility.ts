import { AppError } from '../../lib/errors.js';
import { formatUnits } from '../../lib/money.js';
import { utcDay, type RelayDeps } from './context.js';
import { relayRepo } from './repo.js';
import { validBeforeOf, type Authorization } from './typed-data.js';

export type FoundOrder = NonNullable<Awaited<ReturnType<typeof relayRepo.findOrder>>>;

/**
 * What needs no chain: the authorization's window is exactly the one offered (`valid_after` 0, `valid_before` the
 * order deadline + 1: a shorter one would let it lapse between acceptance and mining, at the relayer's cost)
 * and the order is not below GASLESS_MIN_AMOUNT.
 */
export function checkOffer(deps: RelayDeps, order: FoundOrder, auth: Authorization): void {
  if (auth.validAfter !== 0n) throw new AppError('validation_failed', 'valid_after must be "0", as in the typed data offered.', 'valid_after');
  const validBefore = validBeforeOf(order);
  if (auth.validBefore !== validBefore) {
    throw new AppError('validation_failed', `valid_before must be "${validBefore}" (the order deadline + 1), as in the typed data offered.`, 'valid_before');
  }
  if (order.amount < deps.config.gaslessMinAmount) {
    throw new AppError('gasless_refused', `Gasless payment starts at ${formatUnits(deps.config.gaslessMinAmount)} USDC; this order is ${formatUnits(order.amount)}. Pay another way.`);
  }
}

/** One relay in flight per order and per payer (advisory, read with the order; the unique indexes decide at accept). */
export function checkInFlight(order: FoundOrder, payer: string): void {
  if (order.relay_in_flight) throw relayInFlight(`A relay for order ${order.id} is already in flight.`);
  if (order.payer_in_flight) throw relayInFlight(`A relay from ${payer} is already in flight; wait for it to finish.`);
}

export const relayInFlight = (message: string) => new AppError('relay_in_flight', message);

/**
 * A payer whose relay failed for a cause it controls (payer-fault.ts) is refused until its ban ends (`now`: the
 * chain's time) and on that order for good: 422 gasless_refused, counted for the payer and the platform's day.
 */
export async function checkPayer(deps: RelayDeps, order: FoundOrder, payer: string, now: bigint): Promise<void> {
  const until = order.banned_until === null ? null : BigInt(order.banned_until);
  const banned = until !== null && until > now;
  if (order.order_ban === null && !banned) return;
  await relayRepo.countRefused(deps.db, payer, order.platform_id, utcDay(now));
  if (order.order_ban !== null) {
    throw new AppError('gasless_refused', `${payer} cannot pay order ${order.id} gaslessly: an earlier relay of it from this address failed (${order.order_ban}). Pay another way.`, 'from');
  }
  const when = new Date(Number(until) * 1000).toISOString();
  throw new AppError('gasless_refused', `${payer} cannot pay gaslessly until ${when} (chain clock): a relay from it failed (${order.ban_reason ?? 'reverted'}). Pay another way.`, 'from');
}
