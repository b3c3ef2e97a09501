import type { Config } from '../../config.js';
import type { CheckoutService } from '../checkout/index.js';
import type { RelayDeps } from '../relay/context.js';

/** What every x402 operation needs (modules/x402/index.ts assembles it): the relay's dependencies and a few of its own. */
export type X402Deps = Omit<RelayDeps, 'config'> & {
  config: RelayDeps['config'] & Pick<Config, 'publicBaseUrl' | 'x402MinAmount' | 'chains'>;
  checkout: Pick<CheckoutService, 'createAs'>;
  /** The longest a paid request waits for the relayer's transaction to be mined before it answers settlement_pending. */
  settleWaitMs: number;
  /** How often that wait reads the relay's transaction. */
  pollMs: number;
};

/** The longest an authorization may live (maxTimeoutSeconds): short, as a stolen signer key could pair it with a forged order. */
export const MAX_TIMEOUT_SECONDS = 300;
/** Below this much of a session's life on the chain's clock it is not offered: the authorization could not be mined in time. */
export const MIN_TIMEOUT_SECONDS = 30;
/**
 * An authorization must lapse at least this long before the order's signed deadline: a front-run authorization is
 * completed by the operator's attributeTransfer, which the router accepts only while now <= deadline
 * (x402/front-run.ts), so the deadline has to outlive the authorization by the indexer's depth plus a send.
 */
export const ATTRIBUTE_ROOM_SECONDS = 120n;
/** Room for the client's wall clock running ahead of the chain's (the client sets validBefore = its now + maxTimeoutSeconds). */
export const CLOCK_SKEW_SECONDS = 120n;
/** An authorization must stay valid at least this long after it is checked, or it may lapse before the relay is mined. */
export const MIN_REMAINING_SECONDS = 6n;

export { x402Url } from '../checkout/serialize.js';
