import type { Context } from 'hono';

/**
 * The address a request came from, as far as it can be trusted: what sign-in rate limits count by.
 *
 * `trustedHops` is the number of reverse proxies in front of the service, each of which appends the address
 * it received the request from to X-Forwarded-For (nginx `$proxy_add_x_forwarded_for`, AWS ALB, Fly,
 * Cloudflare…). With none (the default), the header is the client's own words and is ignored: the TCP
 * peer is the client. With n, the client is the address n hops back along [peer, ...X-Forwarded-For
 * read from the right]; whatever the client wrote to the left of that is never used. Express's
 * `trust proxy = n` means the same.
 */
export function clientAddress(peer: string | null, forwardedFor: string | undefined, trustedHops: number): string | null {
  if (trustedHops === 0) return peer;
  const hops = (forwardedFor ?? '').split(',').map((a) => a.trim()).filter((a) => a !== '');
  const chain = [peer, ...hops.reverse()];
  // Fewer addresses than proxies: the request did not come through all of them; the furthest one is all we have.
  return chain[Math.min(trustedHops, chain.length - 1)] ?? null;
}

/** The TCP peer under @hono/node-server (c.env.incoming); null where there is no socket (app.request in tests). */
export function peerAddress(c: Context): string | null {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? null;
}
