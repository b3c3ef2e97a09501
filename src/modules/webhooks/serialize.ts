import type { DeliveryView, EndpointRow } from './repo.js';

/** Disabled (by the deliverer, for good) wins over paused (by the platform, until resumed). */
export const endpointStatus = (row: Pick<EndpointRow, 'disabled_at' | 'paused_at'>) =>
  row.disabled_at ? ('disabled' as const) : row.paused_at ? ('paused' as const) : ('enabled' as const);

export function serializeEndpoint(row: EndpointRow, secret?: string, now = new Date()) {
  const previousLive = row.previous_secret_expires_at && row.previous_secret_expires_at > now;
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    description: row.description,
    subscribed_events: row.subscribed_events as string[],
    status: endpointStatus(row),
    disabled_reason: row.disabled_reason,
    paused_at: row.paused_at?.toISOString() ?? null,
    // The secret appears only in the responses that create or roll it.
    ...(secret !== undefined ? { secret } : {}),
    previous_secret_expires_at: previousLive ? row.previous_secret_expires_at!.toISOString() : null,
    created_at: row.created_at.toISOString(),
  };
}

export function serializeDeletedEndpoint(row: EndpointRow) {
  return { id: row.id, object: 'webhook_endpoint' as const, deleted: true as const };
}

export function serializeDelivery(row: DeliveryView) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    state: row.state,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error,
    last_attempt_at: row.last_attempt_at ? new Date(row.last_attempt_at).toISOString() : null,
    next_attempt_at: row.state === 'pending' ? row.next_attempt_at.toISOString() : null,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
