import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { formatUnits } from '../../lib/money.js';
import { inClosedSnapshot } from './close-balances.js';
import { balanceRepo } from './repo.js';
import { toBig } from './serialize.js';

const DAY_MS = 86_400_000;

/**
 * Per UTC day over the last `days` days ending with the chain's current day (the indexed cursor's block time;
 * the service's clock only when nothing is indexed yet): gross paid volume, refunds completed, net = gross − refunded.
 * Every day appears, with zeros where nothing happened.
 */
export async function netVolume(db: Db, platformId: string, days: number, clock: Clock) {
  const chainTime = await balanceRepo.chainTime(db, platformId);
  const today = Math.floor((chainTime ? new Date(chainTime).getTime() : clock.ms()) / DAY_MS) * DAY_MS;
  const since = new Date(today - (days - 1) * DAY_MS);
  const rows = new Map((await inClosedSnapshot(db, platformId, (tx, closed) => balanceRepo.days(tx, platformId, since, closed))).map((r) => [r.day, r]));
  let gross = 0n;
  let refunded = 0n;
  const data = Array.from({ length: days }, (_, i) => {
    const day = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    const r = rows.get(day);
    const g = toBig(r?.gross);
    const f = toBig(r?.refunded);
    gross += g;
    refunded += f;
    return { day, gross: formatUnits(g), refunded: formatUnits(f), net: formatUnits(g - f), payments: Number(r?.payments ?? 0), refunds: Number(r?.refunds ?? 0) };
  });
  return { object: 'net_volume' as const, days, timezone: 'UTC' as const, gross: formatUnits(gross), refunded: formatUnits(refunded), net: formatUnits(gross - refunded), data };
}
