import { getAddress } from 'viem';
import type { OrderRow } from '../orders/repo.js';
import { budgetSpent } from './budget.js';
import { utcDay, type RelayDeps } from './context.js';
import { relayRepo } from './repo.js';
import { serializeRelay } from './serialize.js';
import { gaslessTypedData } from './typed-data.js';

/**
 * The session read's `gasless` block: whether this order can be paid by a relayed authorization now, why
 * not, the typed data to sign, and the order's latest relay. Advisory: the relay endpoint checks again. It
 * knows the payer only when the order is locked to one (`payer_refused` while that payer is banned).
 */
export async function gaslessView(deps: RelayDeps, order: OrderRow) {
  const latest = await relayRepo.latestForOrder(deps.db, order.id);
  const relay = latest ? serializeRelay(latest) : null;
  const off = (reason: string) => ({ enabled: false, reason, typed_data: null, relay });
  if (!deps.config.gaslessEnabled) return off('disabled');
  if (!deps.chains.relayer) return off('relayer_unavailable');
  if (order.state !== 'pending_payment') return off('order_not_payable');
  if (order.amount < deps.config.gaslessMinAmount) return off('amount_below_minimum');
  const rt = deps.chains.get(order.chain_id);
  const now = BigInt(Math.floor(rt.clock.now().getTime() / 1000));
  const payer = order.payer_address ? getAddress(order.payer_address) : null;
  const day = await relayRepo.dayState(deps.db, { platformId: order.platform_id, chainId: order.chain_id, day: utcDay(now), payer });
  if (day.bannedUntil !== null && day.bannedUntil > now) return off('payer_refused');
  if (day.used >= deps.config.gaslessDailyCap) return off('daily_cap_reached');
  if (budgetSpent(deps.config.relayerDailyBudgetWei, day)) return off('budget_exhausted');
  const domain = await deps.tokenDomains.get(rt.publicClient, order.chain_id, getAddress(order.token_address)).catch(() => null);
  if (!domain) return off('token_unsupported');
  return { enabled: true, reason: null, typed_data: gaslessTypedData(order, domain), relay };
}
export type GaslessView = Awaited<ReturnType<typeof gaslessView>>;
