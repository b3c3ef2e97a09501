import type { Selectable } from 'kysely';
import type { CheckoutSessionsTable } from '../../db/schema.js';

export type SessionRow = Selectable<CheckoutSessionsTable>;

export const serializeSession = (s: SessionRow, token: string, url: string) => ({
  id: s.id,
  object: 'checkout_session' as const,
  session_token: token,
  url,
  state: s.state,
  order_id: s.order_id,
  expires_at: s.expires_at.toISOString(),
  success_url: s.success_url,
  cancel_url: s.cancel_url,
  payer_address: s.payer_address,
  created_at: s.created_at.toISOString(),
});
