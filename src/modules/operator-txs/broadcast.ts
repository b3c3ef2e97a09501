import type { Hex, PublicClient } from 'viem';
import { describeError } from '../../lib/redact-urls.js';

/**
 * eth_sendRawTransaction. `accepted`: the node took it now or already had it; `nonce_used`: its nonce is
 * consumed (by this transaction or another), the monitor finds out which; `failed`: RPC trouble, retried.
 */
export type BroadcastResult = { result: 'accepted' } | { result: 'nonce_used' } | { result: 'failed'; error: string };

export async function broadcast(client: PublicClient, raw: Hex): Promise<BroadcastResult> {
  try {
    await client.sendRawTransaction({ serializedTransaction: raw });
    return { result: 'accepted' };
  } catch (err) {
    const text = `${(err as { details?: string })?.details ?? ''} ${(err as Error)?.message ?? ''}`.toLowerCase();
    if (/already known|known transaction|already imported|transaction already exists|replacement transaction underpriced/.test(text)) return { result: 'accepted' };
    if (/nonce too low|nonce has already been used|invalid nonce|oldnonce/.test(text)) return { result: 'nonce_used' };
    return { result: 'failed', error: describeError(err) };
  }
}
