import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { ChainsService } from '../chains/service.js';
import type { Caller, OrdersService } from '../orders/index.js';
import { createSession, type CreateSessionInput, type SessionResponder } from './create-session.js';
import { createOrderIdsOfTokens, getPublicSessionJson, orderIdOfSessionToken, type GaslessOf } from './get-public.js';
import type { PublicSessionCache } from './public-cache.js';

export type { CreateSessionInput } from './create-session.js';
export type { GaslessOf } from './get-public.js';
export { cacheFollowsOrders, sessionsFollowOrders } from './follow-orders.js';

/**
 * The checkout service: each operation is a function of its own file, bound here to its dependencies.
 * Sessions follow their orders through OrderTransitioned (follow-orders.ts, subscribed in services.ts).
 */
export function createCheckoutService(deps: {
  db: Db; config: Config; chains: ChainsService; orders: OrdersService; gaslessOf: GaslessOf; cache?: PublicSessionCache | undefined;
}) {
  const orderIds = createOrderIdsOfTokens();
  return {
    create: (caller: Caller, input: CreateSessionInput) => createSession(deps, caller, input),
    /** The same creation, answered (and recorded for the Idempotency-Key) as `respond` builds it from the session. */
    createAs: <T>(caller: Caller, input: CreateSessionInput, respond: SessionResponder<T>) => createSession(deps, caller, input, respond),
    orderIdOfToken: (token: string) => orderIdOfSessionToken({ db: deps.db, orderIds }, token),
    readPublicJson: (token: string) => getPublicSessionJson({ ...deps, orderIds }, token),
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
