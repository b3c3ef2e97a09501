import { getAddress } from 'viem';
import type { OrderRow } from '../orders/repo.js';
import { utcDay, type RelayDeps } from './context.js';
import { relayRepo } from './repo.js';
import { serializeRelay } from './serialize.js';
import { gaslessTypedData } from './typed-data.js';

/**
 * The session read's `gasless` block: whether this order can be paid by a relayed authorization now, why
 * not, the typed data to sign, and the order's latest relay. Advisory: the relay endpoint checks again.
 */
export async function gaslessView(deps: RelayDeps, order: OrderRow) {
  const latest = await relayRepo.latestForOrder(deps.db, order.id);
  const relay = latest ? serializeRelay(latest) : null;
  const off = (reason: string) => ({ enabled: false, reason, typed_data: null, relay });
  if (!deps.config.gaslessEnabled) return off('disabled');
  if (!deps.chains.relayer) return off('relayer_unavailable');
  if (order.state !== 'pending_payment') return off('order_not_payable');
  const rt = deps.chains.get(order.chain_id);
  const day = utcDay(BigInt(Math.floor(rt.clock.now().getTime() / 1000)));
  if ((await relayRepo.usedOn(deps.db, order.platform_id, day)) >= deps.config.gaslessDailyCap) return off('daily_cap_reached');
  const domain = await deps.tokenDomains.get(rt.publicClient, order.chain_id, getAddress(order.token_address)).catch(() => null);
  if (!domain) return off('token_unsupported');
  return { enabled: true, reason: null, typed_data: gaslessTypedData(order, domain), relay };
}
export type GaslessView = Awaited<ReturnType<typeof gaslessView>>;
