import { promises as dnsPromises } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * SSRF guard for webhook URLs (DESIGN §4). A webhook makes our server send a POST wherever a tenant says,
 * so outside devnet the destination must be a public address: loopback, private, link-local (cloud
 * metadata at 169.254.169.254), CGNAT, multicast, reserved and IPv6 equivalents are refused, whatever
 * spelling the URL uses. The WHATWG parser first normalises numeric hosts (0x7f000001, 2130706433,
 * 0177.0.0.1, 127.1 all become 127.0.0.1); IPv4-mapped IPv6 is unwrapped and judged as IPv4.
 *
 * Checked twice: at registration, and at delivery through `guardedLookup`, which validates what DNS
 * returns at connect time and hands the socket exactly those addresses, so a name that re-resolves to
 * 10.0.0.1 after registration (DNS rebinding) is refused.
 */
export type UrlPolicy = { requireHttps: boolean; allowPrivate: boolean };

/** Devnet: local receivers (http, loopback, private networks) work; metadata and other oddities stay out. */
export const policyForEnv = (env: string): UrlPolicy =>
  env === 'devnet' ? { requireHttps: false, allowPrivate: true } : { requireHttps: true, allowPrivate: false };

export class UnsafeUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeUrlError';
  }
}

function blockList(v4: [string, number][], v6: [string, number][]) {
  const list = new BlockList();
  for (const [net, prefix] of v4) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of v6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}

/** Never reachable, devnet included. */
const NEVER = blockList(
  [
    ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
    ['169.254.0.0', 16], // link-local, cloud metadata
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24], // documentation
    ['192.88.99.0', 24], // 6to4 relay anycast
    ['198.18.0.0', 15], // benchmarking
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, including 255.255.255.255 broadcast
  ],
  [
    ['::', 128], // unspecified
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated)
    ['ff00::', 8], // multicast
    ['100::', 64], // discard-only
    ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking)
    ['2001:db8::', 32], // documentation
    ['2002::', 16], // 6to4: embeds an IPv4 address we would not check
    ['64:ff9b::', 96], ['64:ff9b:1::', 48], // NAT64: embeds an IPv4 address
  ],
);

/** Local networks: reachable only in devnet. */
const PRIVATE = blockList(
  [['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['100.64.0.0', 10]],
  [['::1', 128], ['fc00::', 7]],
);

/** Outside these, IPv6 is not global unicast (IPv4-compatible ::a.b.c.d, reserved blocks): refused. */
const GLOBAL_UNICAST_V6 = blockList([], [['2000::', 3]]);

/** Eight 16-bit groups of an IPv6 address (dotted IPv4 tail allowed), or null. */
function ipv6Groups(ip: string): number[] | null {
  let s = ip.toLowerCase().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4tail) {
    const [a, b, c, d] = v4tail.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => (/^[0-9a-f]{1,4}$/.test(h) ? parseInt(h, 16) : NaN)));
  const head = parse(halves[0] ?? '');
  const tail = halves.length === 2 ? parse(halves[1] ?? '') : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<number>(Math.max(fill, 0)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) && fill >= 0 ? groups : null;
}

/** An IPv4-mapped (::ffff:a.b.c.d) address as its IPv4 form; anything else unchanged. */
export function unmapIPv4(ip: string): string {
  if (isIP(ip.replace(/^\[|\]$/g, '')) !== 6) return ip;
  const g = ipv6Groups(ip);
  if (!g || g.slice(0, 5).some((x) => x !== 0) || g[5] !== 0xffff) return ip.replace(/^\[|\]$/g, '');
  return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join('.');
}

/** Why an address may not be contacted under `policy`, or null if it may. */
export function addressProblem(rawIp: string, policy: UrlPolicy): string | null {
  const ip = unmapIPv4(rawIp.replace(/%.*$/, ''));
  const family = isIP(ip);
  if (family === 0) return 'is not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (NEVER.check(ip, type)) return 'is a reserved, link-local or multicast address';
  if (PRIVATE.check(ip, type)) return policy.allowPrivate ? null : 'is a loopback or private address';
  if (type === 'ipv6' && !GLOBAL_UNICAST_V6.check(ip, 'ipv6')) return 'is not a global unicast address';
  return null;
}

export const MAX_URL_LENGTH = 2048;

/**
 * Static checks (no DNS): parses with the WHATWG URL parser, which also normalises numeric IPv4 spellings;
 * scheme, credentials and a literal address are judged here. Returns the parsed URL.
 */
export function parseWebhookUrl(raw: string, policy: UrlPolicy): URL {
  if (raw.length > MAX_URL_LENGTH) throw new UnsafeUrlError(`url must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeUrlError('url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !policy.requireHttps)) {
    throw new UnsafeUrlError(policy.requireHttps ? 'url must use https' : 'url must use http or https');
  }
  // Credentials in a URL end up in logs and dashboards; receivers authenticate us by signature instead.
  if (url.username || url.password) throw new UnsafeUrlError('url must not contain credentials');
  if (!url.hostname) throw new UnsafeUrlError('url must have a host');
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal)) {
    const problem = addressProblem(literal, policy);
    if (problem) throw new UnsafeUrlError(`url host ${problem}`);
  }
  return url;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;
export const systemResolver: Resolver = (hostname) => dnsPromises.lookup(hostname, { all: true, verbatim: true });

/** Every address the host resolves to must be allowed: one private record among public ones is refused. */
export async function resolveAllowed(hostname: string, policy: UrlPolicy, resolve: Resolver): Promise<LookupAddress[]> {
  const literal = hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal)) {
    const problem = addressProblem(literal, policy);
    if (problem) throw new UnsafeUrlError(`url host ${problem}`);
    return [{ address: literal, family: isIP(literal) }];
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(hostname);
  } catch {
    throw new UnsafeUrlError('url host does not resolve');
  }
  if (addresses.length === 0) throw new UnsafeUrlError('url host does not resolve');
  for (const a of addresses) {
    if (addressProblem(a.address, policy)) throw new UnsafeUrlError('url host must resolve only to public addresses');
  }
  return addresses;
}

/** Registration-time check: static checks, then every resolved address. */
export async function assertWebhookUrl(raw: string, policy: UrlPolicy, resolve: Resolver = systemResolver): Promise<URL> {
  const url = parseWebhookUrl(raw, policy);
  await resolveAllowed(url.hostname, policy, resolve);
  return url;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `lookup` for a socket's connect (`net`/`tls.connect`; the deliverer's undici pools pass it through, agents.ts):
 * resolves, validates every address, and gives the socket only validated addresses, so the address connected to is
 * the address checked (no second, unchecked resolution). Node 20 asks for all addresses (autoSelectFamily); older
 * callers ask for one.
 */
export function guardedLookup(policy: UrlPolicy, resolve: Resolver = systemResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolveAllowed(hostname, policy, resolve).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        const first = wanted[0];
        if (!first) return callback(Object.assign(new UnsafeUrlError('url host has no address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return callback(null, wanted);
        return callback(null, first.address, first.family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}
