import type { Event } from '../types.js';
import { signWebhook } from '../webhooks.js';

export type Delivery = { status: number | null; ms: number; error?: string };

/** The body the service delivers for an event: { id, type, created_at, data } (the API's `object` field dropped). */
export function webhookBody(e: Event): string {
  return JSON.stringify({ id: e.id, type: e.type, created_at: e.created_at, data: e.data });
}

/**
 * POSTs one event to the local URL exactly as the service would deliver it (the same body, both signature
 * schemes, signed with the session's secret) and reports the answer. One attempt: a failure is logged, not retried.
 */
export async function forwardEvent(url: string, secret: string, e: Event, timeoutMs = 15_000): Promise<Delivery> {
  const body = webhookBody(e);
  const headers = { ...signWebhook(body, secret, { eventId: e.id }), 'user-agent': 'Trisettle-CLI/1' };
  const started = performance.now();
  try {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, ms: Math.round(performance.now() - started) };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { status: null, ms: Math.round(performance.now() - started), error: cause ?? (err instanceof Error ? err.message : String(err)) };
  }
}
