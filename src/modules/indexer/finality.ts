import { BaseError, BlockNotFoundError, RpcError } from 'viem';
import type { FinalityTag } from '../../config.js';
import type { ChainRuntime } from '../chains/service.js';

/** Which bound set the target: the depth, the node's tag, or the depth because the node refused the tag. */
export type FinalitySource = 'depth' | 'tag' | 'depth_fallback';
export type Target = { head: bigint; target: bigint; source: FinalitySource };

/** JSON-RPC answers meaning "no such tag here" (method/params refused, unknown block), not a transient fault. */
const UNSUPPORTED_CODES = new Set([-32600, -32601, -32602, -32000]);

export function isUnsupportedTag(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  if (err.walk((e) => e instanceof BlockNotFoundError)) return true;
  const rpc = err.walk((e) => e instanceof RpcError) as RpcError | null;
  return rpc !== null && UNSUPPORTED_CODES.has(rpc.code);
}

export const finalityOf = (rt: ChainRuntime, devnet: boolean): FinalityTag => rt.finality ?? (devnet ? 'latest' : 'safe');

/**
 * The block up to which the indexer applies logs: min(head − confirmations, the block the node names
 * `safe`/`finalized`). A node without the tag: the depth alone (source depth_fallback, shown in status).
 * Transient faults (HTTP, timeouts, rate limits) fail the tick rather than silently lower the bar.
 */
export async function confirmedTarget(rt: ChainRuntime, tag: FinalityTag): Promise<Target> {
  const head = await rt.publicClient.getBlockNumber({ cacheTime: 0 });
  const byDepth = head - BigInt(rt.confirmations);
  if (tag === 'latest') return { head, target: byDepth, source: 'depth' };
  try {
    const block = await rt.publicClient.getBlock({ blockTag: tag });
    const tagged = block.number ?? byDepth;
    return tagged < byDepth ? { head, target: tagged, source: 'tag' } : { head, target: byDepth, source: 'depth' };
  } catch (err) {
    if (isUnsupportedTag(err)) return { head, target: byDepth, source: 'depth_fallback' };
    throw err;
  }
}
