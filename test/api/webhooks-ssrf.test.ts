import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

/** Outside devnet a webhook URL must be https and reach only public addresses, whatever its spelling. */
let h: Harness;
let key: string;

beforeAll(async () => {
  h = await createHarness({ config: { env: 'production' } });
  key = (await h.platform()).secretKey;
});
afterAll(() => h.close());

const register = (url: string) => h.request('POST', '/v1/webhooks/endpoints', { key, body: { url, subscribed_events: ['*'] } });

const REFUSED: [string, string][] = [
  ['plain http', 'http://93.184.215.14/hook'],
  ['credentials', 'https://user:pass@93.184.215.14/hook'],
  ['loopback', 'https://127.0.0.1/hook'],
  ['loopback, other /8 address', 'https://127.255.0.9/hook'],
  ['a name resolving to loopback', 'https://localhost/hook'],
  ['a name resolving to loopback, with port', 'https://localhost:8443/hook'],
  ['10/8', 'https://10.0.0.1/hook'],
  ['172.16/12 low end', 'https://172.16.0.1/hook'],
  ['172.16/12 high end', 'https://172.31.255.255/hook'],
  ['192.168/16', 'https://192.168.1.1/hook'],
  ['cloud metadata (link-local)', 'https://169.254.169.254/latest/meta-data'],
  ['CGNAT 100.64/10', 'https://100.64.0.1/hook'],
  ['0.0.0.0', 'https://0.0.0.0/hook'],
  ['0/8', 'https://0.1.2.3/hook'],
  ['multicast', 'https://224.0.0.1/hook'],
  ['broadcast', 'https://255.255.255.255/hook'],
  ['reserved 240/4', 'https://240.0.0.1/hook'],
  ['documentation range', 'https://192.0.2.10/hook'],
  ['benchmarking range', 'https://198.18.0.1/hook'],
  ['hex integer 0x7f000001', 'https://0x7f000001/hook'],
  ['decimal integer 2130706433', 'https://2130706433/hook'],
  ['octal 0177.0.0.1', 'https://0177.0.0.1/hook'],
  ['short form 127.1', 'https://127.1/hook'],
  ['mixed hex 0x7f.1', 'https://0x7f.1/hook'],
  ['octal integer 017700000001', 'https://017700000001/hook'],
  ['trailing dot 127.0.0.1.', 'https://127.0.0.1./hook'],
  ['hex 10.0.0.1 as 0x0a000001', 'https://0x0a000001/hook'],
  ['IPv6 loopback', 'https://[::1]/hook'],
  ['IPv6 unspecified', 'https://[::]/hook'],
  ['IPv6 unique local fc00::/7', 'https://[fc00::1]/hook'],
  ['IPv6 unique local fd..', 'https://[fd12:3456:789a::1]/hook'],
  ['IPv6 link-local', 'https://[fe80::1]/hook'],
  ['IPv6 multicast', 'https://[ff02::1]/hook'],
  ['IPv4-mapped private', 'https://[::ffff:10.0.0.1]/hook'],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
  ['IPv4-mapped metadata, hex groups', 'https://[::ffff:a9fe:a9fe]/hook'],
  ['IPv4-compatible (deprecated)', 'https://[::127.0.0.1]/hook'],
  ['NAT64 of a private address', 'https://[64:ff9b::a00:1]/hook'],
  ['6to4 of loopback', 'https://[2002:7f00:1::1]/hook'],
];

describe('webhook URL SSRF guard (production)', () => {
  for (const [what, url] of REFUSED) {
    it(`refuses ${what}: ${url}`, async () => {
      const before = await h.count('webhook_endpoints');
      const res = await register(url);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'url' });
      expect(res.body.error.message).not.toMatch(/does not resolve/); // refused for what it is, not by accident
      expect(await h.count('webhook_endpoints')).toBe(before);
    });
  }

  const ACCEPTED = [
    'https://93.184.215.14/hook',
    'https://8.8.8.8:8443/hook?source=trisettle',
    'https://172.15.255.255/hook', // just below 172.16/12
    'https://172.32.0.1/hook', // just above it
    'https://100.128.0.1/hook', // just above 100.64/10
    'https://[2606:4700:4700::1111]/hook',
    'https://[::ffff:8.8.8.8]/hook', // mapped, but public
  ];
  for (const url of ACCEPTED) {
    it(`accepts the public address ${url}`, async () => {
      const res = await register(url);
      expect(res.status).toBe(201);
    });
  }

  it('does not reveal what an internal name resolves to', async () => {
    const res = await register('https://localhost/hook');
    expect(res.body.error.message).toBe('url host must resolve only to public addresses');
  });
});
