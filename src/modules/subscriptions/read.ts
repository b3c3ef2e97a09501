import { decodeCursor, toPage } from '../../db/pagination.js';
import { notFound } from '../../lib/errors.js';
import type { SubscriptionsDeps } from './deps.js';
import { subscriptionsRepo } from './repo.js';
import type { ListSubscriptionsFilters } from './schemas.js';
import { serializeSubscription } from './serialize.js';

/** GET /v1/subscriptions/{id}: the caller's subscription (another platform's is 404). */
export async function getSubscription(deps: Pick<SubscriptionsDeps, 'db'>, platformId: string, id: string) {
  const s = await subscriptionsRepo.findOfPlatform(deps.db, platformId, id);
  if (!s) throw notFound('subscription');
  return serializeSubscription(s);
}

/** GET /v1/subscriptions: newest first, keyset cursor, filters state and merchant. */
export async function listSubscriptions(deps: Pick<SubscriptionsDeps, 'db'>, platformId: string, q: ListSubscriptionsFilters) {
  const rows = await subscriptionsRepo.list(deps.db, platformId, { state: q.state, merchantExternalId: q.merchant_id }, q.limit, decodeCursor(q.cursor));
  return toPage(rows, q.limit, (r) => serializeSubscription(r));
}
