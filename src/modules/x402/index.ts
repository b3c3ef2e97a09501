import type { Caller } from '../orders/prepare.js';
import type { AuthorizedTransfers } from '../indexer/handlers.js';
import type { OutcomeHandler } from '../operator-txs/types.js';
import type { X402Deps } from './context.js';
import { countsAsRefusal, createRequirements, settleForPlatform, verifyForPlatform, type FacilitatorBody, type RequirementsInput } from './facilitator.js';
import { frontRunCandidate, frontRunHandler, frontRunOutcomeHandlers } from './front-run.js';
import { withX402Outcome } from './on-outcome.js';
import { payByToken } from './pay.js';
import { proveArrival } from './prove.js';

export { x402Url } from './context.js';

/** x402 (issue 28): every checkout session payable by a stock x402 v2 client, and facilitator endpoints for platforms. */
export function createX402(deps: X402Deps) {
  return {
    pay: (token: string, paymentSignature: string | undefined) => payByToken(deps, token, paymentSignature),
    requirements: (caller: Caller, input: RequirementsInput) => createRequirements(deps, caller, input),
    verify: (platformId: string, body: FacilitatorBody) => verifyForPlatform(deps, platformId, body),
    settle: (platformId: string, body: FacilitatorBody) => settleForPlatform(deps, platformId, body),
    /** A verify or settle answer that the refusal bucket counts against its end client. */
    countsAsRefusal,
    /** The relay's outcome handler, followed by the x402 payment's own transition (registered for purpose 'relay'). */
    outcomeHandler: (relayHandler: OutcomeHandler) => withX402Outcome(relayHandler),
    /** The indexer's front-running path (an authorization this service verified, submitted to the token directly). */
    authorizedTransfers: { candidate: frontRunCandidate, prove: (rt, q) => proveArrival(deps, rt, q), claim: frontRunHandler(deps) } satisfies AuthorizedTransfers,
    /** Outcomes of the operator's attributeTransfer / returnTransfer (purposes 'x402_attribute', 'x402_return'). */
    frontRunOutcomeHandlers: frontRunOutcomeHandlers(deps),
  };
}

export type X402Service = ReturnType<typeof createX402>;
