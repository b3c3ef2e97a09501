import { webSocket } from 'viem';
import { describeError } from '../../lib/redact-urls.js';
import type { Logger } from '../../lib/logger.js';

export type HeadSource = { chainId: number; wsUrl?: string | undefined };

/** How long after a failed subscription (node down, socket closed) a new socket and subscription are tried. */
export const RESUBSCRIBE_MS = 2_000;

/**
 * New heads by subscription (`eth_subscribe("newHeads")` over WebSocket) where the chain has an `RPC_WS_URL_<id>`:
 * each head wakes that chain's indexer at once instead of at its next poll, so a payment reaching its depth is
 * applied within milliseconds of its block. A head is only a wake-up: what is read is still decided by the cursor
 * and the depth, so a missed or out-of-order head, a dropped socket or a gap changes nothing but latency, and the
 * poll (500 ms devnet, 2 s elsewhere) keeps running underneath as the fallback. A socket that fails or closes is
 * replaced, with a new subscription, RESUBSCRIBE_MS later (our own loop, not viem's reconnect, which prints its
 * failures, the URL with a provider key included, to the console). One warning per outage, URL redacted.
 */
export function watchHeads(sources: HeadSource[], onHead: (chainId: number) => void, logger: Logger): () => void {
  const stops = sources.filter((s) => s.wsUrl).map((s) => follow(s.chainId, s.wsUrl!, onHead, logger));
  return () => {
    for (const stop of stops) stop();
  };
}

function follow(chainId: number, wsUrl: string, onHead: (chainId: number) => void, logger: Logger): () => void {
  let stopped = false;
  let failing = false;
  let generation = 0;
  let timer: NodeJS.Timeout | undefined;
  let socket: { close(): void } | undefined;
  // Each socket is one generation: its first error closes it and schedules the next; later errors of it are ignored.
  const fail = (gen: number, err: unknown) => {
    if (gen !== generation || stopped) return;
    generation++;
    if (!failing) logger.warn({ chain_id: chainId, err: describeError(err) }, 'new-heads subscription failed; the indexer polls until it is back');
    failing = true;
    socket?.close();
    socket = undefined;
    timer = setTimeout(() => void connect(), RESUBSCRIBE_MS);
  };
  const connect = async () => {
    const gen = generation;
    const transport = webSocket(wsUrl, { reconnect: false, keepAlive: { interval: 30_000 } })({});
    try {
      const client = await transport.value!.getRpcClient();
      if (stopped) return client.close();
      socket = client;
      await transport.value!.subscribe({
        params: ['newHeads'],
        onData: () => {
          failing = false;
          onHead(chainId);
        },
        onError: (err) => fail(gen, err),
      });
    } catch (err) {
      fail(gen, err);
    }
  };
  void connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    socket?.close();
  };
}
