import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId, newSecret } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { deliveriesRepo, endpointsRepo, replayRepo, type EndpointRow } from './repo.js';
import { REPLAY_MAX_EVENTS } from './schemas.js';
import { serializeDelivery, serializeEndpoint } from './serialize.js';
import type { WebhookSecrets } from './secrets.js';
import { assertWebhookUrl, policyForEnv, systemResolver, UnsafeUrlError, type Resolver } from './ssrf.js';

export const MAX_ENDPOINTS_PER_PLATFORM = 16;
/** After a roll the previous secret keeps signing this long, so receivers can swap without dropping events. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export type CreateEndpointInput = { url: string; subscribed_events: string[]; description?: string };
type PageQuery = { limit: number; cursor?: string };

export function createWebhooksService(deps: { db: Db; config: Pick<Config, 'env'>; secrets: WebhookSecrets; resolve?: Resolver }) {
  const { db, secrets } = deps;
  const policy = policyForEnv(deps.config.env);
  const resolve = deps.resolve ?? systemResolver;

  async function checkUrl(url: string) {
    try {
      await assertWebhookUrl(url, policy, resolve);
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw new AppError('validation_failed', err.message, 'url');
      throw err;
    }
  }

  async function live(platformId: string, id: string): Promise<EndpointRow> {
    const row = await endpointsRepo.findLive(db, platformId, id);
    if (!row) throw notFound('webhook endpoint');
    return row;
  }

  return {
    async createEndpoint(platformId: string, input: CreateEndpointInput) {
      await checkUrl(input.url);
      const secret = newSecret('whsec');
      const row = await db.transaction().execute(async (tx) => {
        await endpointsRepo.lockPlatform(tx, platformId);
        if ((await endpointsRepo.countLive(tx, platformId)) >= MAX_ENDPOINTS_PER_PLATFORM) {
          throw new AppError('conflict', `A platform may have at most ${MAX_ENDPOINTS_PER_PLATFORM} webhook endpoints; delete one first.`);
        }
        const inserted = await endpointsRepo.insert(tx, {
          id: newId('we'),
          platform_id: platformId,
          url: input.url,
          description: input.description ?? null,
          subscribed_events: JSON.stringify(input.subscribed_events),
          secret: secrets.seal(secret),
          created_at: new Date(),
        });
        // Same transaction as the row: a retry with this Idempotency-Key after a crash gets this answer
        // (secret included, it is the same caller) instead of creating a second endpoint.
        await recordResponseInTx(tx, 201, serializeEndpoint(inserted, secret));
        return inserted;
      });
      return { row, secret };
    },

    async listEndpoints(platformId: string, q: PageQuery) {
      const rows = await endpointsRepo.list(db, platformId, { limit: q.limit, cursor: decodeCursor(q.cursor) });
      return toPage(rows, q.limit, (r) => serializeEndpoint(r));
    },

    getEndpoint: live,

    /** Soft delete: the row stays for the delivery history; what was still pending to it is failed. */
    async deleteEndpoint(platformId: string, id: string): Promise<EndpointRow> {
      return db.transaction().execute(async (tx) => {
        const row = await endpointsRepo.softDelete(tx, platformId, id, new Date());
        if (!row) throw notFound('webhook endpoint');
        await deliveriesRepo.failPendingForEndpoint(tx, id, 'endpoint deleted');
        return row;
      });
    },

    async rollSecret(platformId: string, id: string) {
      const secret = newSecret('whsec');
      // The answer commits with the roll: a retry after a crash replays this secret rather than rolling
      // twice, which would drop the secret receivers still verify with (previous_secret).
      return db.transaction().execute(async (tx) => {
        const row = await endpointsRepo.rollSecret(tx, platformId, id, secrets.seal(secret), new Date(Date.now() + PREVIOUS_SECRET_TTL_MS));
        if (!row) throw notFound('webhook endpoint');
        await recordResponseInTx(tx, 200, serializeEndpoint(row, secret));
        return { row, secret };
      });
    },

    async listDeliveries(platformId: string, endpointId: string, q: PageQuery) {
      await live(platformId, endpointId);
      const rows = await deliveriesRepo.listForEndpoint(db, platformId, endpointId, { limit: q.limit, cursor: decodeCursor(q.cursor) });
      return toPage(rows, q.limit, serializeDelivery);
    },

    /**
     * Re-delivers to one endpoint exactly the platform's events created in [since, until) that it subscribes to
     * (including events from before it existed), each due now with a fresh retry schedule. Refused (nothing
     * scheduled) for a disabled endpoint, an empty or inverted range, or more than REPLAY_MAX_EVENTS events.
     */
    async replay(platformId: string, endpointId: string, range: { since: string; until: string }) {
      const endpoint = await live(platformId, endpointId);
      if (endpoint.disabled_at) {
        throw new AppError('invalid_state', `Cannot replay: endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason ?? 'disabled'}).`);
      }
      const since = new Date(range.since);
      const until = new Date(range.until);
      if (!(since < until)) throw new AppError('validation_failed', 'until must be later than since.', 'until');
      const subscribed = endpoint.subscribed_events as string[];
      return db.transaction().execute(async (tx) => {
        const ids = await replayRepo.eventIds(tx, platformId, subscribed, since, until, REPLAY_MAX_EVENTS + 1);
        if (ids.length > REPLAY_MAX_EVENTS) {
          throw new AppError('validation_failed', `The range holds more than ${REPLAY_MAX_EVENTS} events; replay it in smaller ranges.`, 'until');
        }
        const now = new Date();
        for (let i = 0; i < ids.length; i += 500) {
          await replayRepo.schedule(tx, ids.slice(i, i + 500).map((eventId) => ({
            id: newId('dlv'), event_id: eventId, endpoint_id: endpointId, platform_id: platformId, state: 'pending' as const, created_at: now,
          })));
        }
        const body = { object: 'webhook_replay' as const, endpoint_id: endpointId, since: since.toISOString(), until: until.toISOString(), events: ids.length };
        await recordResponseInTx(tx, 200, body);
        return body;
      });
    },

    /**
     * Sends the event again now, whatever the delivery's state, with a fresh retry schedule. The endpoint
     * must still be live (deleted → 404) and enabled (disabled → 409).
     */
    async redeliver(platformId: string, deliveryId: string) {
      const current = await deliveriesRepo.findView(db, platformId, deliveryId);
      if (!current) throw notFound('webhook delivery');
      const endpoint = await endpointsRepo.findLive(db, platformId, current.endpoint_id);
      if (!endpoint) throw notFound('webhook delivery');
      if (endpoint.disabled_at) {
        throw new AppError('invalid_state', `Cannot redeliver: endpoint ${endpoint.id} is disabled (${endpoint.disabled_reason ?? 'disabled'}).`);
      }
      const updated = await deliveriesRepo.reschedule(db, platformId, deliveryId);
      if (!updated) throw new AppError('invalid_state', 'Cannot redeliver: an attempt of this delivery is in flight; try again in a few seconds.');
      return serializeDelivery((await deliveriesRepo.findView(db, platformId, deliveryId))!);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
