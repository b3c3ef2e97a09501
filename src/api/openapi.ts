import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Hook } from '@hono/zod-openapi';
import { AppError, ERROR_CODES, type ErrorCode } from '../lib/errors.js';
import type { AppEnv } from './context.js';
import { validationError } from './middleware/errors.js';

/**
 * Every request schema is strict and validated here; a failure becomes 422 validation_failed naming the first
 * offending field (unknown fields included) in plain words (middleware/errors.ts), in the one error shape of the API.
 */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (result.success) return;
  throw validationError(result.error.issues[0]);
};

export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

export const ErrorSchema = z
  .object({
    error: z.object({
      type: z.enum([...new Set(Object.values(ERROR_CODES).map((e) => e.type))] as [string, ...string[]]),
      code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]).openapi({ description: 'Stable, machine-readable; branch on this, not on message' }),
      message: z.string().openapi({ description: 'For people; may change' }),
      param: z.string().optional().openapi({ description: 'The offending field (validation_failed)' }),
      request_id: z.string().openapi({ description: 'Also in the X-Request-Id header; quote it to support' }),
    }),
  })
  .openapi('Error');

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (invalid_json)',
  401: 'Missing or invalid credentials (unauthenticated)',
  403: 'Credential not allowed here (forbidden, secret_key_required, session_required, gasless_disabled)',
  404: 'Unknown resource, or another platform\'s (not_found)',
  409: 'Conflict (conflict, invalid_state, key_limit_reached, order_not_payable, relay_in_flight, duplicate_idempotency_key, idempotency_key_in_use, invitation_used)',
  410: 'Gone (invitation_expired, session_expired)',
  413: 'Body too large (payload_too_large)',
  415: 'Body is not application/json (unsupported_media_type)',
  422: 'Validation failed (validation_failed, unsupported_chain, invalid_signature, invalid_authorization, payer_mismatch, simulation_failed, gasless_refused, gas_limit_exceeded, amount_exceeds_refundable)',
  429: 'Rate limited (rate_limited, gasless_cap_reached)',
  500: 'Unexpected error, masked (internal); safe to retry with the same Idempotency-Key',
  503: 'Temporarily unavailable (service_unavailable, gasless_unavailable)',
};

/**
 * Error responses of a route. Every route may answer 500; a route that takes a body (it lists 413, from
 * the body limit) also meets the JSON-only check (415), so both are added here rather than in each route.
 */
export function errors(...statuses: number[]) {
  const all = new Set([...statuses, ...(statuses.includes(413) ? [415] : []), 500]);
  const out: Record<number, { description: string; content: { 'application/json': { schema: typeof ErrorSchema } } }> = {};
  for (const s of [...all].sort()) {
    out[s] = { description: ERROR_DESCRIPTIONS[s] ?? 'Error', content: { 'application/json': { schema: ErrorSchema } } };
  }
  return out;
}

export const jsonBody = <T extends z.ZodType>(schema: T, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

export const IdempotencyHeader = z.object({
  'idempotency-key': z.string().max(255).optional().openapi({
    description: 'Unique key (e.g. a UUID) making the request safe to retry for 24 hours.',
  }),
});

export const ListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: 'Page size, 1..100 (default 20)' }),
    cursor: z.string().max(200).optional().openapi({ description: 'next_cursor of the previous page' }),
  })
  .strict();

export function listEnvelope<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable(),
    })
    .openapi(name);
}

export { z };

import { requireAuth } from './middleware/auth.js';

type Security = Record<string, string[]>[];
const sec = (...names: string[]): Security => names.map((n) => ({ [n]: [] as string[] }));

/** Who may call a route: spread into createRoute({...}) so the guard and the OpenAPI security agree. */
export const access = {
  secret: () => ({ security: sec('bearer'), middleware: [requireAuth('secret')] }),
  secretOrSession: () => ({ security: sec('bearer', 'session'), middleware: [requireAuth('secret', 'session')] }),
  anyKeyOrSession: () => ({ security: sec('bearer', 'session'), middleware: [requireAuth('secret', 'publishable', 'session')] }),
  session: () => ({ security: sec('session'), middleware: [requireAuth('session')] }),
  admin: () => ({ security: sec('admin'), middleware: [requireAuth('admin')] }),
  public: () => ({ security: [] as Security }),
};
