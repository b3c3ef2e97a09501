import { utcDay, type RelayDeps } from './context.js';
import { relayRepo } from './repo.js';

const DAYS = 30;

/** A platform's relays and relayer gas per UTC day, the last 30 days, with the switch and cap that apply. */
export async function gaslessUsage(deps: RelayDeps, platformId: string) {
  const today = Math.floor(Date.now() / 1000);
  const since = utcDay(BigInt(today - (DAYS - 1) * 86_400));
  const days = await relayRepo.usageSince(deps.db, platformId, since);
  return { object: 'gasless_usage' as const, enabled: deps.config.gaslessEnabled, daily_cap: deps.config.gaslessDailyCap, days };
}
