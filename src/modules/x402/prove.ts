import { BaseError, type Address, type Hex } from 'viem';
import { buildArrivalProof, type ArrivalProof } from '../../chain/arrival-proof.js';
import type { ChainRuntime } from '../chains/service.js';
import type { X402Deps } from './context.js';

/**
 * The proof the operator's attributeTransfer / returnTransfer carry that `from`'s authorization `nonce` moved its
 * value into the router in `txHash` (chain/arrival-proof.ts), built before the claim's transaction (never inside the
 * indexer's range transaction). A node that cannot be reached throws (the caller retries later); a block the builder
 * cannot prove (its header or receipts do not hash to what the node reports) is null and logged: the transfer stays
 * with the operator as an unmatched one, nothing is sent on a guess.
 */
export async function proveArrival(deps: Pick<X402Deps, 'logger'>, rt: ChainRuntime, q: { txHash: Hex; from: Address; nonce: Hex }): Promise<ArrivalProof | null> {
  try {
    return (await buildArrivalProof(rt.publicClient, { ...q, token: rt.usdc, router: rt.router })).proof;
  } catch (err) {
    if (err instanceof BaseError) throw err;
    deps.logger.error({ chain_id: rt.chainId, tx_hash: q.txHash, from: q.from, err: (err as Error).message }, 'arrival proof could not be built: the transfer is left to the operator');
    return null;
  }
}
