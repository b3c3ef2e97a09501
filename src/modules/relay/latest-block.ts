import type { PublicClient } from 'viem';

type Head = { timestamp: bigint; number: bigint };
const inFlight = new WeakMap<PublicClient, Promise<Head>>();

/**
 * The chain's latest block, with concurrent callers sharing one eth_getBlockByNumber: a burst of relays asks
 * the node once per round trip instead of once each. A caller that joins a read already under way gets a head
 * at most that round trip old, the same it would get had its own request arrived a moment earlier; nothing is
 * kept once the read settles, so a later caller always asks again.
 */
export function latestBlock(client: PublicClient): Promise<Head> {
  const pending = inFlight.get(client);
  if (pending) return pending;
  const read = client.getBlock({ blockTag: 'latest' }).then((b) => ({ timestamp: b.timestamp, number: b.number }));
  inFlight.set(client, read);
  const clear = () => {
    if (inFlight.get(client) === read) inFlight.delete(client);
  };
  read.then(clear, clear);
  return read;
}
