import type { RawBuilder } from 'kysely';
import type { Executor } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import { eventsRepo, type DeliveryColumns } from './repo.js';
import { isEventType, type EventType } from './types.js';

export type EmitManyInput = { platformId: string; type: EventType; data: { object: Record<string, unknown> } };

/**
 * The outbox rows of a batch of events, planned before they are written: an id per event, and one pending
 * delivery per active endpoint of its platform subscribed to its type (endpoints read in the caller's
 * transaction, as emitEvent reads them). `createdAt` stamps both.
 */
export type OutboxPlan = { eventIds: string[]; deliveries: DeliveryColumns; createdAt: Date };

const subscribes = (subscribed: unknown, type: string) => {
  const list = (typeof subscribed === 'string' ? JSON.parse(subscribed) : subscribed) as string[];
  return list.includes(type) || list.includes('*');
};

function check(tx: Executor, types: readonly string[], who: string) {
  for (const t of types) if (!isEventType(t)) throw new Error(`${who}: unknown event type ${String(t)}`);
  if (!tx.isTransaction) throw new Error(`${who}: runs in the transaction of the state change it reports`);
}

/** Ids for the events of `inputs` (in input order) and their deliveries; one statement (the endpoints). */
export async function planOutbox(tx: Executor, inputs: readonly { platformId: string; type: EventType }[]): Promise<OutboxPlan> {
  const eventIds = inputs.map(() => newId('evt'));
  const d: DeliveryColumns = { id: [], eventId: [], endpointId: [], platformId: [] };
  const createdAt = new Date();
  if (inputs.length === 0) return { eventIds, deliveries: d, createdAt };
  const byPlatform = new Map<string, { id: string; subscribed_events: unknown }[]>();
  for (const ep of await eventsRepo.activeEndpoints(tx, [...new Set(inputs.map((e) => e.platformId))])) {
    byPlatform.set(ep.platform_id, [...(byPlatform.get(ep.platform_id) ?? []), ep]);
  }
  inputs.forEach((e, i) => {
    for (const ep of byPlatform.get(e.platformId) ?? []) {
      if (!subscribes(ep.subscribed_events, e.type)) continue;
      d.id.push(newId('dlv'));
      d.eventId.push(eventIds[i]!);
      d.endpointId.push(ep.id);
      d.platformId.push(e.platformId);
    }
  });
  return { eventIds, deliveries: d, createdAt };
}

/**
 * The outbox in bulk (the indexer's batched apply path): for each input the same rows `emitEvent` writes
 * (the event, and one pending delivery per active endpoint of its platform subscribed to its type), in the
 * caller's transaction, in three statements whatever the number of events. Returns the ids in input order.
 */
export async function emitEvents(tx: Executor, inputs: EmitManyInput[]): Promise<string[]> {
  if (inputs.length === 0) return [];
  check(tx, inputs.map((e) => e.type), 'emitEvents');
  const plan = await planOutbox(tx, inputs);
  await eventsRepo.insertMany(tx, inputs.map((e, i) => ({ id: plan.eventIds[i]!, platform_id: e.platformId, type: e.type, data: { object: e.data.object } })), plan.createdAt);
  if (plan.deliveries.id.length > 0) await eventsRepo.insertDeliveriesMany(tx, plan.deliveries, plan.createdAt);
  return plan.eventIds;
}

/**
 * The same rows for events whose bodies a data-modifying statement computes itself (the body never leaves the
 * database): the CTEs to append to that statement, reading `source` (a CTE of it with columns event_id,
 * platform_id, body). Only the events of rows `source` returns are written, with their planned deliveries.
 */
export function outboxCtes(tx: Executor, source: string, type: EventType, plan: OutboxPlan): RawBuilder<unknown> {
  check(tx, [type], 'outboxCtes');
  return eventsRepo.insertFromCtes(source, type, plan.deliveries, plan.createdAt);
}
