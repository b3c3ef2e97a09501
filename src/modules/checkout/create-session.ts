import type { Address } from 'viem';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { newId, newSecret, sha256Hex } from '../../lib/ids.js';
import type { ChainsService } from '../chains/service.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { Caller, OrdersService } from '../orders/index.js';
import { captureBeforeOf } from '../orders/index.js';
import type { CaptureRequest } from '../orders/schemas.js';
import type { OrderRow } from '../orders/repo.js';
import { sessionsRepo } from './repo.js';
import { SESSION_DEFAULT_SECONDS } from './schemas.js';
import { serializeSession, x402Url } from './serialize.js';

export type CreateSessionInput = {
  merchant_id: string;
  order_no: string;
  chain_id: number;
  amount: string;
  success_url?: string | undefined;
  cancel_url?: string | undefined;
  payer_address?: Address | undefined;
  expires_in_seconds?: number | undefined;
  metadata?: Record<string, unknown> | undefined;
  fee_display?: 'itemized' | 'total_only' | undefined;
  late_payment?: 'return' | 'accept' | undefined;
} & CaptureRequest;

export type SessionBody = ReturnType<typeof serializeSession>;
/** Another resource's answer built from the session (x402 requirements): the one recorded for the Idempotency-Key. */
export type SessionResponder<T> = (session: SessionBody, order: OrderRow) => T;

/**
 * POST /v1/checkout/sessions. A checkout session is a thin wrapper around an order (SPEC §1): its order is
 * created with it, in the same transaction, with deadline_at = expires_at and the payer lock copied into the
 * signed PayOrder. The session token is a bearer secret in the hosted URL: only its hash is stored, so the
 * answer (which carries the token, once) is serialized here and not by the route: no row can give it back.
 */
export async function createSession<T = SessionBody>(
  deps: { db: Db; config: Config; chains: ChainsService; orders: Pick<OrdersService, 'prepare' | 'insertPrepared'> }, caller: Caller, input: CreateSessionInput,
  respond?: SessionResponder<T>,
): Promise<T> {
  const id = newId('cs');
  const token = newSecret('cs_live');
  // expires_at is the signed PayOrder's deadline: on the chain's clock, which the router checks.
  const chain = deps.chains.get(input.chain_id);
  const expiresAt = new Date(chain.clock.now().getTime() + (input.expires_in_seconds ?? SESSION_DEFAULT_SECONDS) * 1000);
  const prepared = await deps.orders.prepare(caller, {
    merchantExternalId: input.merchant_id, orderNo: input.order_no, chainId: input.chain_id, amount: input.amount,
    metadata: input.metadata ?? {}, deadline: expiresAt, payer: input.payer_address ?? null, checkoutSessionId: id,
    captureBefore: captureBeforeOf(input, expiresAt),
  });
  const url = `${deps.config.dashboardUrl}/checkout/${token}`;
  return deps.db.transaction().execute(async (tx) => {
    const order = await deps.orders.insertPrepared(tx, prepared);
    const row = await sessionsRepo.insert(tx, {
      id, platform_id: caller.platformId, order_id: order.id, token_hash: sha256Hex(token), state: 'open',
      success_url: input.success_url ?? null, cancel_url: input.cancel_url ?? null,
      payer_address: input.payer_address ?? null, expires_at: expiresAt, fee_display: input.fee_display ?? 'itemized',
      late_payment: input.late_payment ?? 'return',
    });
    const session = serializeSession(row, token, url, x402Url(deps.config.publicBaseUrl, token));
    const body = respond ? respond(session, order) : (session as T);
    await recordResponseInTx(tx, 201, body);
    return body;
  });
}
