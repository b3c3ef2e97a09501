import type { Db } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import { formatUnits } from '../../lib/money.js';
import { inClosedSnapshot } from './close-balances.js';
import { balanceRepo, type BalancePartRow } from './repo.js';
import { toBig, toIso } from './serialize.js';

type Sums = { gross: bigint; platformFees: bigint; hold: bigint; held: bigint; releasable: bigint; next: Date | null; fromReserve: bigint; fromSubmitter: bigint; authorized: bigint };
const zero = (): Sums => ({ gross: 0n, platformFees: 0n, hold: 0n, held: 0n, releasable: 0n, next: null, fromReserve: 0n, fromSubmitter: 0n, authorized: 0n });
const earliest = (a: Date | null, b: Date | null) => (a === null ? b : b === null ? a : a < b ? a : b);
const ADD = ['gross', 'platformFees', 'hold', 'held', 'releasable', 'fromReserve', 'fromSubmitter', 'authorized'] as const;

function add(s: Sums, r: BalancePartRow) {
  s.gross += toBig(r.gross);
  s.platformFees += toBig(r.platform_fees);
  s.hold += toBig(r.reserve_hold);
  s.held += toBig(r.held);
  s.releasable += toBig(r.releasable);
  s.fromReserve += toBig(r.from_reserve);
  s.fromSubmitter += toBig(r.from_submitter);
  s.authorized += toBig(r.authorized);
  s.next = earliest(s.next, r.next_release_at === null ? null : new Date(r.next_release_at));
}

/**
 * Platform-wide and per-merchant balances: closed sums plus what happened since (close-balances.ts; the closing
 * worker moves the closing point, a read never writes), and the
 * reserve still held. Releasable is decided on the indexed chain time (the block time of the indexer's cursor),
 * never the wall clock. Released is what the reserves lost other than to refunds (reserve_hold − still held −
 * refunded from reserve): the router's own arithmetic (the ledger lists each release; the accounting test on
 * anvil checks both agree).
 */
export async function getBalance(db: Db, platformId: string, merchantId?: string) {
  if (merchantId !== undefined && !(await balanceRepo.merchantExists(db, platformId, merchantId))) throw notFound('merchant');
  const [parts, chainTime] = await Promise.all([
    inClosedSnapshot(db, platformId, (tx, closedUntil) => balanceRepo.balanceParts(tx, platformId, closedUntil, merchantId)),
    balanceRepo.chainTime(db, platformId),
  ]);
  const per = new Map<string, Sums>();
  for (const r of parts) add(per.get(r.merchant_id) ?? per.set(r.merchant_id, zero()).get(r.merchant_id)!, r);
  const total = zero();
  for (const s of per.values()) {
    for (const k of ADD) total[k] += s[k];
    total.next = earliest(total.next, s.next);
  }
  const merchants = [...per.entries()].filter(([, s]) => s.gross > 0n || s.authorized > 0n)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, s]) => ({ merchant_id: id, ...totals(s) }));
  return { object: 'balance' as const, token: 'USDC' as const, as_of: toIso(chainTime), ...totals(total), merchants };
}

function totals(s: Sums) {
  return {
    gross_volume: formatUnits(s.gross),
    platform_fees: formatUnits(s.platformFees),
    reserve_held: formatUnits(s.held),
    reserve_releasable: formatUnits(s.releasable),
    next_release_at: s.next?.toISOString() ?? null,
    released: formatUnits(s.hold - s.held - s.fromReserve),
    refunded_from_reserve: formatUnits(s.fromReserve),
    refunded_from_submitter: formatUnits(s.fromSubmitter),
    authorized: formatUnits(s.authorized),
  };
}
