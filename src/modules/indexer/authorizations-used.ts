import { isAddressEqual, parseEventLogs, type Address, type Hex } from 'viem';
import type { ChainRuntime } from '../chains/service.js';
import { AUTHORIZATION_USED_EVENT, type RouterLog, type TransferLog } from './events.js';
import { matchTransfers } from './match-transfers.js';

/** An ERC-3009 authorization the token reported used in a transaction (AuthorizationUsed). */
export type AuthorizationUsed = { authorizer: Address; nonce: Hex; blockHash: Hex };

/**
 * For each transaction that moved USDC into the router without a router event pulling it (an unmatched transfer:
 * rare), the token's AuthorizationUsed logs of that transaction, read from its receipt. An x402 authorization
 * submitted straight to the token by someone else (front-running) shows up here: its Transfer to the router and
 * its AuthorizationUsed(from, nonce) in one transaction, with no OrderPaid/X402Settled. Keyed by lowercase hash.
 */
export async function authorizationsUsed(rt: ChainRuntime, transfers: TransferLog[], logs: RouterLog[]): Promise<Map<string, AuthorizationUsed[]>> {
  const out = new Map<string, AuthorizationUsed[]>();
  const hashes = [...new Set(matchTransfers(transfers, logs, rt.usdc).unmatched.map((t) => t.transactionHash))];
  for (const hash of hashes) {
    const receipt = await rt.publicClient.getTransactionReceipt({ hash });
    const used = parseEventLogs({ abi: [AUTHORIZATION_USED_EVENT], logs: receipt.logs, strict: true })
      .filter((l) => isAddressEqual(l.address, rt.usdc))
      .map((l) => ({ authorizer: l.args.authorizer, nonce: l.args.nonce, blockHash: receipt.blockHash }));
    if (used.length > 0) out.set(hash.toLowerCase(), used);
  }
  return out;
}
