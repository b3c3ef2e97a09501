import type { Address, Hex } from 'viem';
import { createPayOrderSigner, type PayOrderMessage } from '../../chain/eip712.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { ChainsService } from '../chains/service.js';
import type { OrderTransitions } from './events.js';
import type { SigningMemory } from './signing-memory.js';

export type SignPayOrder = (chainId: number, router: Address, msg: PayOrderMessage) => Promise<Hex>;

/** Everything the orders operations use; each takes only the part it needs (Pick). Built once in index.ts. */
export type OrdersDeps = {
  db: Db;
  config: Config;
  chains: ChainsService;
  clock: Clock;
  transitions: OrderTransitions;
  memory: SigningMemory;
  sign: SignPayOrder;
};

/** The PayOrder signer, made on first use: an instance without the signing key still serves reads. */
export function lazyPayOrderSigner(chains: ChainsService): SignPayOrder {
  let signer: ReturnType<typeof createPayOrderSigner> | undefined;
  return (chainId, router, msg) => (signer ??= createPayOrderSigner(chains.requireSigner()))(chainId, router, msg);
}
