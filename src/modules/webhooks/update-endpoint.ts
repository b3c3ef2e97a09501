import type { Updateable } from 'kysely';
import type { WebhookEndpointsTable } from '../../db/schema.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { WebhooksApiDeps } from './api-deps.js';
import { toolsRepo } from './tools-repo.js';

export type UpdateEndpointInput = { url?: string; subscribed_events?: string[]; description?: string | null };

/**
 * POST /v1/webhooks/endpoints/:id. A new URL passes the same SSRF check as on creation before anything is
 * written. Deliveries already scheduled keep going to the endpoint (to its new URL from the next attempt); a
 * change of subscribed events applies to events emitted from now on.
 */
export async function updateEndpoint(deps: WebhooksApiDeps, platformId: string, id: string, input: UpdateEndpointInput) {
  if (input.url === undefined && input.subscribed_events === undefined && input.description === undefined) {
    throw new AppError('validation_failed', 'Give at least one of url, subscribed_events, description.');
  }
  if (input.url !== undefined) await deps.checkUrl(input.url);
  const set: Updateable<WebhookEndpointsTable> = {};
  if (input.url !== undefined) set.url = input.url;
  if (input.subscribed_events !== undefined) set.subscribed_events = JSON.stringify(input.subscribed_events);
  if (input.description !== undefined) set.description = input.description;
  const row = await toolsRepo.update(deps.db, platformId, id, set);
  if (!row) throw notFound('webhook endpoint');
  return row;
}
