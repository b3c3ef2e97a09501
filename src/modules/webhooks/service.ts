import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import { endpointUrlChecker, type WebhooksApiDeps } from './api-deps.js';
import { createEndpoint, type CreateEndpointInput } from './create-endpoint.js';
import { deleteEndpoint } from './delete-endpoint.js';
import { pauseEndpoint, resumeEndpoint } from './pause-endpoint.js';
import { getDelivery } from './read-delivery.js';
import { pruneAttempts } from './prune-attempts.js';
import type { Logger } from '../../lib/logger.js';
import { emitTestEvent, sendTestEvent } from './send-test.js';
import { updateEndpoint, type UpdateEndpointInput } from './update-endpoint.js';
import { getEndpoint, listDeliveries, listEndpoints, type PageQuery } from './read-endpoints.js';
import { redeliver } from './redeliver.js';
import { deliveriesRepo } from './repo.js';
import { serializeDelivery } from './serialize.js';
import { replayEvents } from './replay.js';
import { rotateSecret } from './rotate-secret.js';
import type { WebhookSecrets } from './secrets.js';
import type { Resolver } from './ssrf.js';

export { MAX_ENDPOINTS_PER_PLATFORM, type CreateEndpointInput } from './create-endpoint.js';
export { PREVIOUS_SECRET_TTL_MS } from './rotate-secret.js';

/**
 * The webhook endpoints API (not the deliverer, deliver.ts): each operation lives in its own file; this only
 * binds them to their dependencies.
 */
export function createWebhooksService(opts: {
  db: Db; config: Pick<Config, 'env' | 'webhookAttemptRetentionDays'>; secrets: WebhookSecrets; resolve?: Resolver; clock: Clock; wake?: () => void; logger: Logger;
}) {
  const deps: WebhooksApiDeps = { db: opts.db, secrets: opts.secrets, clock: opts.clock, checkUrl: endpointUrlChecker(opts.config, opts.resolve), wake: opts.wake ?? (() => {}) };
  const { db } = deps;
  return {
    createEndpoint: (platformId: string, input: CreateEndpointInput) => createEndpoint(deps, platformId, input),
    listEndpoints: (platformId: string, q: PageQuery) => listEndpoints(db, platformId, q),
    getEndpoint: (platformId: string, id: string) => getEndpoint(db, platformId, id),
    deleteEndpoint: (platformId: string, id: string) => deleteEndpoint(deps, platformId, id),
    rollSecret: (platformId: string, id: string) => rotateSecret(deps, platformId, id),
    listDeliveries: (platformId: string, endpointId: string, q: PageQuery) => listDeliveries(db, platformId, endpointId, q),
    replay: (platformId: string, endpointId: string, range: { since: string; until: string }) => replayEvents(deps, platformId, endpointId, range),
    redeliver: (platformId: string, deliveryId: string) => redeliver(db, platformId, deliveryId),
    updateEndpoint: (platformId: string, id: string, input: UpdateEndpointInput) => updateEndpoint(deps, platformId, id, input),
    pauseEndpoint: (platformId: string, id: string) => pauseEndpoint(deps, platformId, id),
    resumeEndpoint: (platformId: string, id: string) => resumeEndpoint(deps, platformId, id),
    sendTestEvent: (platformId: string, id: string, type?: string) => sendTestEvent(deps, platformId, id, type),
    emitTestEvent: (platformId: string, type: string) => emitTestEvent(deps, platformId, type),
    getDelivery: (platformId: string, id: string) => getDelivery(db, platformId, id),
    /** The deliveries of one event (GET /v1/events/{id}); each is resent with POST /v1/webhooks/deliveries/{id}/redeliver. */
    eventDeliveries: async (platformId: string, eventId: string) => (await deliveriesRepo.listForEvent(db, platformId, eventId)).map(serializeDelivery),
    /** The retention pass (workers.ts, hourly): attempts of finished deliveries made before now − the retention. */
    pruneAttempts: (now = opts.clock.now()) =>
      pruneAttempts(db, { before: new Date(now.getTime() - opts.config.webhookAttemptRetentionDays * 86_400_000), log: opts.logger }),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
