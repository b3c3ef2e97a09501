import type { Address, Chain, Hex, PublicClient } from 'viem';
import type { Config } from 'wagmi';
import type { Relay } from '../../../lib/types';
import type { PayOrderStruct } from '../order';

/** The ways the page can pay, best first (issue 17): each failure falls through to the next one. */
export type Method = 'gasless' | 'batched' | 'permit' | 'approve';
export const METHOD_ORDER: Method[] = ['gasless', 'batched', 'permit', 'approve'];

/** Everything a flow needs, passed in: the wagmi config (wallet), a public client on the session's RPC. */
export type FlowContext = {
  config: Config;
  client: PublicClient;
  chain: Chain;
  account: Address;
  token: Address;
  router: Address;
  amount: bigint;
  order: PayOrderStruct;
  orderSignature: Hex;
  sessionToken: string;
  /** Progress inside a flow (the wallet is open, a transaction is pending): drives the button label. */
  onStep: (step: FlowStep) => void;
};

export type FlowStep = 'signing' | 'confirm_in_wallet' | 'approve_pending' | 'relaying' | 'batch_pending';

/** How a flow ended: a transaction the page follows, or a relay the service sends and the session reports. */
export type FlowResult = { kind: 'tx'; hash: Hex } | { kind: 'relay'; relay: Relay };

/** A flow that cannot go on in a way the next method could fix; `message` is for the buyer. */
export class FlowFailed extends Error {
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'FlowFailed';
  }
}
