/**
 * Shapes of the developer-experience endpoints (test clock, delivery inspector, timelines, request log) as the
 * pages read them. Kept beside the generated API types so a page compiles before and after the SDK regenerates.
 */
export type ChainClock = { chain_time: number | string; block_number: number | string };
export type AdvancedClock = ChainClock & { advanced_by: number };

export type HttpHeaders = Record<string, string | string[]>;

export type DeliveryAttempt = {
  attempted_at: string;
  request: { url: string | null; headers: HttpHeaders | null; body: string | null };
  response: { status: number; headers: HttpHeaders | null; body: string | null } | null;
  error: string | null;
  duration_ms: number | null;
};

export type DeliveryDetail = {
  id: string;
  event_id: string;
  event_type?: string | null;
  endpoint_id?: string;
  url?: string;
  status?: string;
  state?: string;
  next_attempt_at: string | null;
  created_at?: string;
  attempts: number;
  attempt_history: DeliveryAttempt[];
};

export type TimelineDelivery = { id: string; endpoint_id?: string; endpoint_url?: string; url?: string; status?: string; state?: string; attempts?: number | unknown[] };

export type TimelineEntry = {
  at: string;
  kind: string;
  title: string;
  description?: string | null;
  detail?: string | null;
  amount?: string | null;
  event_id?: string | null;
  event_type?: string | null;
  deliveries?: TimelineDelivery[] | null;
  tx_hash?: string | null;
  explorer_url?: string | null;
};

export type RequestLog = {
  request_id: string;
  method: string;
  path: string;
  status: number;
  idempotency_key: string | null;
  principal: string | { type?: string; key_id?: string; user_id?: string } | null;
  duration_ms: number;
  error_code: string | null;
  request_body?: string | null;
  response_body?: string | null;
  created_at: string;
};

/** Chain time as the API gives it (unix seconds, as a number or a string, or an ISO date) to a Date. */
export function chainDate(v: number | string): Date {
  if (typeof v === 'number' || /^\d+$/.test(v)) return new Date(Number(v) * 1000);
  return new Date(v);
}
