import type { Executor } from '../../db/client.js';

/**
 * Chain anomalies the service must not paper over (a payment that does not match its order, an
 * unknown refund, a reorg below the depth): written as rows operators can query, next to a log line.
 */
export async function recordAlert(tx: Executor, chainId: number, kind: string, detail: Record<string, unknown>) {
  await tx.insertInto('chain_alerts').values({
    chain_id: chainId,
    kind,
    detail: JSON.stringify(detail, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
  }).execute();
}
