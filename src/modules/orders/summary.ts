import { formatUnits } from '../../lib/money.js';
import type { OrdersDeps } from './deps.js';
import { ordersRepo } from './repo.js';

const DAY_MS = 86_400_000;

/** GET /v1/orders/summary: counts, the last 24 h's gross and 14 UTC days of gross, on the service's clock. */
export async function ordersSummary(deps: Pick<OrdersDeps, 'db' | 'clock'>, platformId: string, now = deps.clock.now()) {
  const since14 = new Date(now.getTime() - 13 * DAY_MS);
  since14.setUTCHours(0, 0, 0, 0);
  const [counts, gross, daily] = await Promise.all([
    ordersRepo.counts(deps.db, platformId),
    ordersRepo.grossSince(deps.db, platformId, new Date(now.getTime() - DAY_MS)),
    ordersRepo.grossDaily(deps.db, platformId, since14),
  ]);
  const byDay = new Map(daily.map((d) => [d.day, d]));
  const gross_daily = Array.from({ length: 14 }, (_, i) => {
    const day = new Date(since14.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    const d = byDay.get(day);
    return { day, gross: formatUnits(BigInt(d?.gross ?? '0')), count: Number(d?.count ?? 0) };
  });
  return {
    total: Number(counts.total),
    pending: Number(counts.pending),
    confirmed: Number(counts.confirmed),
    gross_24h: formatUnits(BigInt(gross.gross)),
    gross_daily,
  };
}
