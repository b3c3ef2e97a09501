import type { Db } from '../../db/client.js';
import type { Page } from '../../db/pagination.js';
import { AppError } from '../../lib/errors.js';
import { eventsRepo, type DeliveryStatusFilter } from './repo.js';
import { serializeEvent } from './serialize.js';

/**
 * GET /v1/events?after=<evt_id>: the platform's events after that one, OLDEST first, for a follower (the SDK's
 * `trisettle listen`). "After" is the feed's order: the writing transaction, then created_at, then id. Only events
 * of transactions older than every transaction still running are listed, so an event committed late (its
 * created_at is stamped inside its transaction) is listed after the events already returned, never skipped:
 * passing the last event of each page as `after` reads every event exactly once. A transaction left open holds
 * the feed back (later events wait for it) rather than letting it skip. next_cursor is null: the next page is
 * `after=<last id>`; has_more says whether more are listable now. `after` must name an event of this platform:
 * another platform's, or none, is 404 not_found (param `after`), the same answer for both.
 */
export async function listAfter(db: Db, platformId: string, q: { limit: number; cursor?: string; after: string; type?: string; delivery_status?: DeliveryStatusFilter; since?: Date }) {
  if (q.cursor !== undefined) throw new AppError('validation_failed', 'after and cursor cannot be combined: the next page of after is after=<the last id>', 'after');
  const anchor = await eventsRepo.findForPlatform(db, platformId, q.after, q.since);
  if (!anchor) throw new AppError('not_found', 'No such event: after must name an event of this platform.', 'after');
  const rows = await eventsRepo.listAfter(db, platformId, anchor, { limit: q.limit, type: q.type, deliveryStatus: q.delivery_status, since: q.since });
  const more = rows.length > q.limit;
  return { object: 'list', data: rows.slice(0, q.limit).map(serializeEvent), has_more: more, next_cursor: null } satisfies Page<ReturnType<typeof serializeEvent>>;
}
