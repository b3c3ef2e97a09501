import type { Hex, PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { revertNameOf } from './decode-revert.js';

export type Simulation = { ok: true; gasLimit: bigint } | { ok: false; error: string };

/**
 * eth_estimateGas from the sender at the latest block: one execution that both proves the call succeeds (a
 * node answers an estimate only for a call that does not revert) and gives its gas. A revert resolves as
 * `{ ok: false, error }` with the decoded custom error name; anything else (RPC trouble) throws, so the
 * intent stays queued and is tried again.
 */
export async function simulate(client: PublicClient, account: Pick<PrivateKeyAccount, 'address'>, to: Hex, data: Hex): Promise<Simulation> {
  try {
    const gas = await client.estimateGas({ account: account.address, to, data, blockTag: 'latest' });
    return { ok: true, gasLimit: (gas * 12n) / 10n + 10_000n };
  } catch (err) {
    const name = revertNameOf(err);
    if (name === null) throw err;
    return { ok: false, error: name };
  }
}
