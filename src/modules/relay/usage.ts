import { formatUnits } from '../../lib/money.js';
import { utcDay, type RelayDeps } from './context.js';
import { relayRepo } from './repo.js';

const DAYS = 30;

/**
 * A platform's gasless relays per UTC day, the last 30 days (relays holding a slot of the cap, relays that
 * failed, requests refused for an ineligible payer, the relayer's gas), with the limits that apply.
 */
export async function gaslessUsage(deps: RelayDeps, platformId: string) {
  const today = Math.floor(Date.now() / 1000);
  const since = utcDay(BigInt(today - (DAYS - 1) * 86_400));
  const days = await relayRepo.usageSince(deps.db, platformId, since);
  return {
    object: 'gasless_usage' as const,
    enabled: deps.config.gaslessEnabled,
    daily_cap: deps.config.gaslessDailyCap,
    min_amount: formatUnits(deps.config.gaslessMinAmount),
    relayer_gas_limit: deps.config.relayerGasLimit.toString(),
    days,
  };
}
