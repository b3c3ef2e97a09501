import { z } from '@hono/zod-openapi';
import { ALL_EVENTS, EVENT_TYPES } from '../events/service.js';
import { MAX_URL_LENGTH } from './ssrf.js';

export const SubscribedEventsSchema = z
  .array(z.enum([...EVENT_TYPES, ALL_EVENTS]))
  .min(1, 'must list at least one event type')
  .max(EVENT_TYPES.length)
  .refine((v) => new Set(v).size === v.length, 'must not repeat an event type')
  .refine((v) => !v.includes(ALL_EVENTS) || v.length === 1, '"*" (every event type) must be the only entry')
  .openapi({ example: ['order.confirmed', 'refund.completed'], description: `Event types, or ["*"] for every type (including types added later). Types: ${EVENT_TYPES.join(', ')}` });

export const CreateEndpointRequest = z
  .object({
    url: z.string().min(1).max(MAX_URL_LENGTH).openapi({
      example: 'https://example.com/webhooks/trisettle',
      description: 'https, resolving only to public addresses (http and local addresses are accepted on devnet); no credentials',
    }),
    subscribed_events: SubscribedEventsSchema,
    description: z.string().max(500).optional(),
  })
  .strict()
  .openapi('CreateWebhookEndpointRequest');

export const WebhookEndpoint = z
  .object({
    id: z.string().openapi({ example: 'we_3kTn0c1xQvZp9aLm2bYd' }),
    object: z.literal('webhook_endpoint'),
    url: z.string(),
    description: z.string().nullable(),
    subscribed_events: z.array(z.string()),
    status: z.enum(['enabled', 'paused', 'disabled']).openapi({ description: 'paused: by the platform, deliveries wait until resumed; disabled: by the service (410 Gone, or failing too long), pending deliveries failed' }),
    paused_at: z.string().nullable(),
    disabled_reason: z.string().nullable().openapi({ description: 'Why deliveries stopped, e.g. the endpoint answered 410 Gone' }),
    secret: z.string().optional().openapi({ description: 'whsec_…; present only in the responses to creation and to roll-secret' }),
    previous_secret_expires_at: z.string().nullable().openapi({ description: 'After a roll, the previous secret keeps signing (as a second v1= value) until then' }),
    created_at: z.string(),
  })
  .openapi('WebhookEndpoint');

export const DeletedWebhookEndpoint = z
  .object({ id: z.string(), object: z.literal('webhook_endpoint'), deleted: z.literal(true) })
  .openapi('DeletedWebhookEndpoint');

export const WebhookDelivery = z
  .object({
    id: z.string().openapi({ example: 'dlv_8fJ2mQ0aLx7cVt1nPz4R' }),
    object: z.literal('webhook_delivery'),
    endpoint_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    state: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.number().int(),
    last_status: z.number().int().nullable().openapi({ description: 'HTTP status of the last attempt; null if none arrived (timeout, refused)' }),
    last_error: z.string().nullable(),
    last_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable().openapi({ description: 'When the next attempt is due (pending only)' }),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('WebhookDelivery');

export const UpdateEndpointRequest = z
  .object({
    url: CreateEndpointRequest.shape.url.optional(),
    subscribed_events: SubscribedEventsSchema.optional(),
    description: z.string().max(500).nullable().optional().openapi({ description: 'null clears it' }),
  })
  .strict()
  .openapi('UpdateWebhookEndpointRequest');

const Headers = z.record(z.string(), z.string());

export const WebhookAttempt = z
  .object({
    attempted_at: z.string(),
    request: z.object({
      url: z.string().nullable().openapi({ description: 'The URL the attempt was sent to (null for attempts recorded before this was kept)' }),
      headers: Headers.nullable().openapi({ description: 'Every header sent, the signature headers included' }),
      body: z.string().openapi({ description: 'The body sent (the event; the same bytes on every attempt)' }),
    }),
    response: z.object({
      status: z.number().int(),
      headers: Headers.nullable(),
      body: z.string().nullable().openapi({ description: 'The first 4,096 bytes of the answer' }),
    }).nullable().openapi({ description: 'null when no answer arrived (timeout, refused, blocked)' }),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
  })
  .openapi('WebhookAttempt');

export const WebhookDeliveryDetail = WebhookDelivery.extend({
  status: z.enum(['pending', 'succeeded', 'failed']).openapi({ description: 'Same as state' }),
  attempt_history: z.array(WebhookAttempt).openapi({ description: 'The attempts kept, oldest first (at most 100): once the delivery is over, attempts older than WEBHOOK_ATTEMPT_RETENTION_DAYS (30) are deleted, so this may hold fewer than `attempts`, or none; the summary fields stay.' }),
}).openapi('WebhookDeliveryDetail');

export const IdParams = z.object({ id: z.string().max(64) });

export const REPLAY_MAX_EVENTS = 10_000;

export const ReplayRequest = z
  .object({
    since: z.string().datetime({ offset: true }).openapi({ description: 'ISO 8601; events created at or after this instant', example: '2026-11-20T00:00:00Z' }),
    until: z.string().datetime({ offset: true }).openapi({ description: 'ISO 8601; events created before this instant', example: '2026-11-21T00:00:00Z' }),
  })
  .strict()
  .openapi('WebhookReplayRequest');

export const ReplayResponse = z
  .object({
    object: z.literal('webhook_replay'),
    endpoint_id: z.string(),
    since: z.string(),
    until: z.string(),
    events: z.number().int().openapi({ description: 'How many events were scheduled for delivery to this endpoint' }),
  })
  .openapi('WebhookReplay');
