import type { PublicClient } from 'viem';
import { currentFees, type Fees } from '../operator-txs/fees.js';

type Head = { timestamp: bigint; number: bigint };

/**
 * One read per client at a time, shared by every caller that asks while it is under way: a burst of relays asks
 * the node once per round trip instead of once each. A caller that joins a read already under way gets an answer
 * at most that round trip old, the same it would get had its own request arrived a moment earlier; nothing is
 * kept once the read settles, so a later caller always asks again.
 */
function sharedRead<T>(read: (client: PublicClient) => Promise<T>) {
  const inFlight = new WeakMap<PublicClient, Promise<T>>();
  return (client: PublicClient): Promise<T> => {
    const pending = inFlight.get(client);
    if (pending) return pending;
    const p = read(client);
    inFlight.set(client, p);
    const clear = () => {
      if (inFlight.get(client) === p) inFlight.delete(client);
    };
    p.then(clear, clear);
    return p;
  };
}

/** The chain's latest block (its timestamp is the relay's "now"). */
export const latestBlock = sharedRead<Head>((client) => client.getBlock({ blockTag: 'latest' }).then((b) => ({ timestamp: b.timestamp, number: b.number })));

/** EIP-1559 fees as the node suggests them now (the relay's reservation is priced from them), below no cap of ours. */
export const latestFees = sharedRead<Fees>((client) => currentFees(client, 2n ** 255n));
