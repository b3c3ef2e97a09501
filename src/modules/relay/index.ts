import { notFound } from '../../lib/errors.js';
import type { RelayDeps } from './context.js';
import { gaslessView } from './gasless-view.js';
import { relayOutcomeHandler } from './on-outcome.js';
import { relayRepo } from './repo.js';
import { serializeRelay } from './serialize.js';
import { submitRelay, type RelayBody, type RelayTarget } from './submit.js';
import { createTokenDomains } from './token-domain.js';
import { gaslessUsage } from './usage.js';
import type { OrderRow } from '../orders/repo.js';

export { createTokenDomains };

/** The gasless relay (issue 17): operations bound to their dependencies. */
export function createRelay(deps: RelayDeps) {
  return {
    submit: (target: RelayTarget, body: RelayBody) => submitRelay(deps, target, body),
    gasless: (order: OrderRow) => gaslessView(deps, order),
    /** The order's latest relay; 404 when the order is another platform's or has none. */
    latestForOrder: async (platformId: string, orderId: string) => {
      const r = await relayRepo.latestForOrder(deps.db, orderId);
      if (!r || r.platform_id !== platformId) throw notFound('relay for this order');
      return serializeRelay(r);
    },
    usage: (platformId: string) => gaslessUsage(deps, platformId),
    onOutcome: relayOutcomeHandler(deps),
  };
}

export type RelayService = ReturnType<typeof createRelay>;
