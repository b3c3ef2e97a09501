import type { ChainTx, EventWithDeliveries } from './repo.js';

export type TimelineItem = { at: string; kind: string; title: string } & Record<string, unknown>;

/** Items from the rows' optional timestamps: one item per instant that is set. */
export function item(at: Date | null | undefined, kind: string, title: string, extra: Record<string, unknown> = {}): TimelineItem[] {
  return at ? [{ at: new Date(at).toISOString(), kind, title, ...extra }] : [];
}

export const eventItems = (events: EventWithDeliveries[]): TimelineItem[] =>
  events.map((e) => ({
    at: new Date(e.created_at).toISOString(), kind: 'event', title: `Event ${e.type}`, event_id: e.id, event_type: e.type,
    deliveries: (typeof e.deliveries === 'string' ? JSON.parse(e.deliveries) : e.deliveries) ?? [],
  }));

export const txItems = (txs: ChainTx[], explorer: (chainId: number) => string | null): TimelineItem[] =>
  txs.map((t) => {
    const base = explorer(t.chain_id);
    return {
      at: new Date(t.applied_at).toISOString(), kind: 'transaction', title: `On chain: ${t.event_name}`,
      tx_hash: t.tx_hash, block_number: Number(t.block_number), chain_id: t.chain_id, event_name: t.event_name,
      explorer_url: base ? `${base}/tx/${t.tx_hash}` : null,
    };
  });

/** Oldest first; items at the same instant keep the order they were built in (a stable sort). */
export const sorted = (items: TimelineItem[]) => ({ object: 'list' as const, data: items.sort((a, b) => a.at.localeCompare(b.at)).slice(0, 1000) });
