import type { Selectable } from 'kysely';
import type { Db } from '../../db/client.js';
import type { WebhookAttemptsTable } from '../../db/schema.js';
import { notFound } from '../../lib/errors.js';
import { eventBody } from '../events/service.js';
import { deliveriesRepo } from './repo.js';
import { serializeDelivery } from './serialize.js';
import { toolsRepo } from './tools-repo.js';

type AttemptRow = Selectable<WebhookAttemptsTable>;

const asRecord = (v: unknown): Record<string, string> => (typeof v === 'string' ? JSON.parse(v) : (v ?? {})) as Record<string, string>;

/** One attempt as the inspector shows it; the body sent is the event's (the same bytes every attempt). */
function serializeAttempt(a: AttemptRow, body: string) {
  const answered = a.status !== null;
  return {
    attempted_at: a.attempted_at.toISOString(),
    request: { url: a.request_url, headers: a.request_headers ? asRecord(a.request_headers) : null, body },
    response: answered ? { status: a.status!, headers: a.response_headers ? asRecord(a.response_headers) : null, body: a.response_body } : null,
    error: a.error,
    duration_ms: a.duration_ms,
  };
}

/** GET /v1/webhooks/deliveries/:id: the delivery with the attempts kept (oldest first, at most 100; prune-attempts.ts). */
export async function getDelivery(db: Db, platformId: string, id: string) {
  const view = await deliveriesRepo.findView(db, platformId, id);
  if (!view) throw notFound('webhook delivery');
  const [attempts, event] = await Promise.all([toolsRepo.attempts(db, id), toolsRepo.eventOf(db, view.event_id)]);
  const body = JSON.stringify(eventBody({ id: event.id, type: event.type, created_at: event.created_at, data: event.data as never }));
  const base = serializeDelivery(view);
  return { ...base, status: base.state, attempt_history: attempts.map((a) => serializeAttempt(a, body)) };
}
