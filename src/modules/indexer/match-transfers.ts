import type { Address } from 'viem';
import type { RouterLog, TransferLog } from './events.js';

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * USDC the router pulled itself is accounted for by the router event of the same transaction:
 * payOrder pulls `amount` from the payer (OrderPaid: payer = from, amount = value, token = USDC);
 * refund pulls `fromSubmitter` from its sender (Refunded: fromSubmitter = value). Each event accounts for
 * one transfer at most. Every other transfer to the router (a wallet's plain `transfer`) is unmatched.
 */
export function unmatchedTransfers(transfers: TransferLog[], logs: RouterLog[], usdc: Address): TransferLog[] {
  const pulls = new Map<string, { from: Address | null; value: bigint }[]>();
  for (const l of logs) {
    let pull: { from: Address | null; value: bigint } | null = null;
    if (l.eventName === 'OrderPaid' && same(l.args.token, usdc)) pull = { from: l.args.payer, value: l.args.amount };
    if (l.eventName === 'Refunded' && l.args.fromSubmitter > 0n) pull = { from: null, value: l.args.fromSubmitter };
    if (!pull) continue;
    const list = pulls.get(l.transactionHash) ?? [];
    list.push(pull);
    pulls.set(l.transactionHash, list);
  }
  return transfers.filter((t) => {
    const list = pulls.get(t.transactionHash) ?? [];
    const exact = list.findIndex((p) => p.value === t.args.value && p.from !== null && same(p.from, t.args.from));
    const i = exact >= 0 ? exact : list.findIndex((p) => p.value === t.args.value && p.from === null);
    if (i < 0) return true;
    list.splice(i, 1);
    return false;
  });
}
