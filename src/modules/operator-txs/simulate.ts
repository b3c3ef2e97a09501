import type { Hex, PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { revertNameOf } from './decode-revert.js';

export type Simulation = { ok: true; gasLimit: bigint } | { ok: false; error: string };

/**
 * eth_call then eth_estimateGas from the operator at the latest block. A revert resolves as
 * `{ ok: false, error }` with the decoded custom error name; anything else (RPC trouble) throws, so the
 * intent stays queued and is tried again.
 */
export async function simulate(client: PublicClient, account: PrivateKeyAccount, to: Hex, data: Hex): Promise<Simulation> {
  try {
    await client.call({ account: account.address, to, data, blockTag: 'latest' });
    const gas = await client.estimateGas({ account: account.address, to, data, blockTag: 'latest' });
    return { ok: true, gasLimit: (gas * 12n) / 10n + 10_000n };
  } catch (err) {
    const name = revertNameOf(err);
    if (name === null) throw err;
    return { ok: false, error: name };
  }
}
