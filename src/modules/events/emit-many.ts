import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { eventsRepo } from './repo.js';
import { isEventType, type EventType } from './types.js';

export type EmitManyInput = { platformId: string; type: EventType; data: { object: Record<string, unknown> } };

const subscribes = (subscribed: unknown, type: string) => {
  const list = (typeof subscribed === 'string' ? JSON.parse(subscribed) : subscribed) as string[];
  return list.includes(type) || list.includes('*');
};

/**
 * The outbox in bulk (the indexer's batched apply path): for each input the same rows `emitEvent` writes
 * (the event, and one pending delivery per active endpoint of its platform subscribed to its type), in the
 * caller's transaction, in three statements whatever the number of events. Returns the ids in input order.
 */
export async function emitEvents(tx: Executor, inputs: EmitManyInput[]): Promise<string[]> {
  if (inputs.length === 0) return [];
  for (const e of inputs) if (!isEventType(e.type)) throw new Error(`emitEvents: unknown event type ${String(e.type)}`);
  if (!tx.isTransaction) throw new Error('emitEvents: runs in the transaction of the state change it reports');
  const now = new Date();
  const ids = inputs.map(() => newId('evt'));
  await eventsRepo.insertMany(tx, inputs.map((e, i) => ({ id: ids[i]!, platform_id: e.platformId, type: e.type, data: { object: e.data.object } })), now);
  const byPlatform = new Map<string, { id: string; subscribed_events: unknown }[]>();
  for (const ep of await eventsRepo.activeEndpoints(tx, [...new Set(inputs.map((e) => e.platformId))])) {
    byPlatform.set(ep.platform_id, [...(byPlatform.get(ep.platform_id) ?? []), ep]);
  }
  const d = { id: [] as string[], eventId: [] as string[], endpointId: [] as string[], platformId: [] as string[] };
  inputs.forEach((e, i) => {
    for (const ep of byPlatform.get(e.platformId) ?? []) {
      if (!subscribes(ep.subscribed_events, e.type)) continue;
      d.id.push(newId('dlv'));
      d.eventId.push(ids[i]!);
      d.endpointId.push(ep.id);
      d.platformId.push(e.platformId);
    }
  });
  if (d.id.length > 0) await eventsRepo.insertDeliveriesMany(tx, d, now);
  return ids;
}
