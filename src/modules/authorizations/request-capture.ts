import { AppError, notFound } from '../../lib/errors.js';
import { formatUnits, parseAmount } from '../../lib/money.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { OrderRow } from '../orders/repo.js';
import { captureIntent } from './calldata.js';
import type { AuthorizationsDeps } from './deps.js';
import { guardOpenAuthorization } from './guards.js';
import { authorizationsRepo } from './repo.js';

function parseRequested(amount: string | undefined): bigint | null {
  if (amount === undefined) return null;
  const parsed = parseAmount(amount);
  if (!parsed.ok) throw new AppError('validation_failed', `amount ${parsed.reason}`, 'amount');
  return parsed.units;
}

/**
 * POST /v1/orders/{id}/capture. validate → lock the order → guard (authorized, nothing asked yet, the chain's
 * clock before capture_before) → record the request and enqueue capture(…) for the operator sender, in one
 * transaction with the Idempotency-Key's answer. The order stays authorized until the indexer applies the
 * capture (→ confirmed); a capture the chain refuses ends failed and clears the request (outcomes.ts).
 */
export async function requestCapture<B>(deps: AuthorizationsDeps, platformId: string, id: string, body: { amount?: string | undefined }, answer: (o: OrderRow) => B): Promise<B> {
  const requested = parseRequested(body.amount);
  const out = await deps.db.transaction().execute(async (tx) => {
    const order = await authorizationsRepo.lockOfPlatform(tx, platformId, id);
    if (!order) throw notFound('order');
    guardOpenAuthorization(order, 'capture');
    // The router refuses a capture at or after captureDeadline (= capture_before): do not send one that cannot land.
    const chainNow = deps.chains.get(order.chain_id).clock.now();
    if (order.capture_before === null || chainNow >= order.capture_before) {
      throw new AppError('invalid_state', `Order ${order.id} is authorized, but its capture window ended at ${order.capture_before?.toISOString()} (chain time); it will be voided.`);
    }
    const amount = requested ?? order.amount_authorized;
    if (amount > order.amount_authorized) {
      throw new AppError('validation_failed', `amount must be at most the authorized ${formatUnits(order.amount_authorized)} USDC.`, 'amount');
    }
    await enqueueOperatorTx(tx, captureIntent(order, amount, await authorizationsRepo.x402PayOrder(tx, order.id)));
    const body = answer(await authorizationsRepo.markCaptureRequested(tx, order.id, amount, deps.clock.now()));
    await recordResponseInTx(tx, 202, body);
    return body;
  });
  deps.wake();
  return out;
}
