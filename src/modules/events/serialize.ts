import type { EventRow } from './repo.js';

/**
 * The webhook body, exactly DESIGN §4: { id, type, created_at, data: { object } }. Built from the stored
 * row, so every attempt of every delivery of one event sends the same bytes.
 */
export function eventBody(row: Pick<EventRow, 'id' | 'type' | 'created_at' | 'data'>) {
  return {
    id: row.id,
    type: row.type,
    created_at: row.created_at.toISOString(),
    data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as { object: Record<string, unknown> },
  };
}

/** The API representation: the webhook body plus `object`, like every other resource. */
export function serializeEvent(row: EventRow) {
  const body = eventBody(row);
  return { id: body.id, object: 'event' as const, type: body.type, created_at: body.created_at, data: body.data };
}
