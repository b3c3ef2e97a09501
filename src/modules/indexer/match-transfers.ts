import type { Address } from 'viem';
import type { RouterLog, TransferLog } from './events.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * USDC the router pulled itself is accounted for by the router event of the same transaction:
 * payOrder pulls `amount` from the payer (OrderPaid: payer = from, amount = value, token = USDC);
 * charge later pulls it into escrow (OrderAuthorized: the same fields), by allowance, permit, the payer's
 * ReceiveWithAuthorization or an x402 relay; a subscription charge is pulled from the SubscriptionManager, which
 * pulled it from the payer first (its Charged: from = the manager's address, the log's own, amount = value);
 * refund pulls `fromSubmitter` from its sender (Refunded: fromSubmitter = value). Each event accounts for
 * one transfer at most. Every other transfer to the router (a wallet's plain `transfer`, an authorization
 * submitted to the token directly) is unmatched: only those can be attributed to an x402 payment.
 */
export function unmatchedTransfers(transfers: TransferLog[], logs: RouterLog[], usdc: Address): TransferLog[] {
  return matchTransfers(transfers, logs, usdc).unmatched;
}

/**
 * As above, and for each Refunded log with a submitter part, the sender of the transfer that paid it: who funded
 * the refund (msg.sender of `refund`, seen on the token's own log, so a contract wallet is named as itself).
 */
export function matchTransfers(transfers: TransferLog[], logs: RouterLog[], usdc: Address): { unmatched: TransferLog[]; funders: Map<RouterLog, Address> } {
  type Pull = { from: Address | null; value: bigint; log: RouterLog };
  const pulls = new Map<string, Pull[]>();
  for (const l of logs) {
    let pull: Pull | null = null;
    if ((l.eventName === 'OrderPaid' || l.eventName === 'OrderAuthorized') && same(l.args.token, usdc)) pull = { from: l.args.payer, value: l.args.amount, log: l };
    if (l.eventName === 'Charged') pull = { from: l.address, value: l.args.amount, log: l };
    if (l.eventName === 'Refunded' && l.args.fromSubmitter > 0n) pull = { from: null, value: l.args.fromSubmitter, log: l };
    if (!pull) continue;
    const list = pulls.get(l.transactionHash) ?? [];
    list.push(pull);
    pulls.set(l.transactionHash, list);
  }
  const funders = new Map<RouterLog, Address>();
  const unmatched = transfers.filter((t) => {
    const list = pulls.get(t.transactionHash) ?? [];
    const exact = list.findIndex((p) => p.value === t.args.value && p.from !== null && same(p.from, t.args.from));
    const i = exact >= 0 ? exact : list.findIndex((p) => p.value === t.args.value && p.from === null);
    if (i < 0) return true;
    const [p] = list.splice(i, 1);
    if (p!.log.eventName === 'Refunded') funders.set(p!.log, t.args.from);
    return false;
  });
  return { unmatched, funders };
}
