import { notFound } from '../../lib/errors.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import type { OrderRow } from '../orders/repo.js';
import { voidIntent } from './calldata.js';
import type { AuthorizationsDeps } from './deps.js';
import { guardOpenAuthorization } from './guards.js';
import { authorizationsRepo } from './repo.js';

/**
 * POST /v1/orders/{id}/void. lock → guard (authorized, nothing asked yet) → record the request and enqueue
 * voidAuthorization(orderId), in one transaction with the Idempotency-Key's answer. Works before and after
 * capture_before (the router voids at any time). The order moves to voided when the indexer applies
 * AuthorizationVoided; a void is sent once per order (operator_txs_void_once).
 */
export async function requestVoid<B>(deps: AuthorizationsDeps, platformId: string, id: string, answer: (o: OrderRow) => B): Promise<B> {
  const out = await deps.db.transaction().execute(async (tx) => {
    const order = await authorizationsRepo.lockOfPlatform(tx, platformId, id);
    if (!order) throw notFound('order');
    guardOpenAuthorization(order, 'void');
    await enqueueOperatorTx(tx, voidIntent(order));
    const body = answer(await authorizationsRepo.markVoidRequested(tx, order.id, 'requested', deps.clock.now()));
    await recordResponseInTx(tx, 202, body);
    return body;
  });
  deps.wake();
  return out;
}
