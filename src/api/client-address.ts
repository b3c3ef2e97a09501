import { isIP } from 'node:net';
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

/**
 * What an address is counted under. IPv4 as is, and an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a
 * dual-stack socket reports) as its IPv4. IPv6 by its /64, the block one subscriber is given: a client rotating
 * addresses inside it stays in one bucket. Anything that is not an address (a proxy's odd value) as written.
 */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const kind = isIP(bare);
  if (kind !== 6) return kind === 4 ? bare : address;
  const g = ipv6Groups(bare);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 as two groups). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((x) => parseInt(x, 16));
}
