import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { addressProblem, assertWebhookUrl, guardedLookup, parseWebhookUrl, policyForEnv, unmapIPv4, UnsafeUrlError } from '../../src/modules/webhooks/ssrf.js';

const prod = policyForEnv('production');
const dev = policyForEnv('devnet');
const resolver = (map: Record<string, string[]>) => async (host: string): Promise<LookupAddress[]> => {
  const list = map[host];
  if (!list) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('addressProblem', () => {
  it('refuses non-public addresses in production', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.0.1', '169.254.169.254', '100.100.100.100', '0.0.0.0',
      '224.0.0.251', '255.255.255.255', '::1', '::', 'fc00::1', 'fdff::1', 'fe80::1%eth0', 'ff02::1', '::ffff:10.0.0.1',
      '::ffff:7f00:1', '::ffff:169.254.169.254', '0:0:0:0:0:ffff:a00:1', '64:ff9b::7f00:1', '2001:db8::1', '2002:a00:1::1', '::a00:1']) {
      expect(addressProblem(ip, prod), ip).not.toBeNull();
    }
  });
  it('accepts public addresses', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.15.0.1', '172.32.0.1', '100.63.255.255', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450:4001::1']) {
      expect(addressProblem(ip, prod), ip).toBeNull();
    }
  });
  it('lets devnet reach loopback and private networks but never metadata or multicast', () => {
    for (const ip of ['127.0.0.1', '10.0.0.1', '192.168.1.1', '::1', 'fd00::1']) expect(addressProblem(ip, dev), ip).toBeNull();
    for (const ip of ['169.254.169.254', '0.0.0.0', '224.0.0.1', 'fe80::1', '::ffff:169.254.169.254']) expect(addressProblem(ip, dev), ip).not.toBeNull();
  });
  it('unmaps IPv4-mapped IPv6 in both spellings', () => {
    expect(unmapIPv4('::ffff:a00:1')).toBe('10.0.0.1');
    expect(unmapIPv4('[::ffff:10.0.0.1]')).toBe('10.0.0.1');
    expect(unmapIPv4('2606:4700::1')).toBe('2606:4700::1');
    expect(unmapIPv4('8.8.8.8')).toBe('8.8.8.8');
  });
});

describe('parseWebhookUrl', () => {
  it('normalises numeric hosts with the WHATWG parser before judging them', () => {
    for (const u of ['https://0x7f000001/', 'https://2130706433/', 'https://0177.0.0.1/', 'https://127.1/']) {
      expect(() => parseWebhookUrl(u, prod), u).toThrow(/loopback or private/);
    }
  });
  it('requires https outside devnet and refuses credentials everywhere', () => {
    expect(() => parseWebhookUrl('http://8.8.8.8/', prod)).toThrow(/https/);
    expect(parseWebhookUrl('http://127.0.0.1:3000/x', dev).port).toBe('3000');
    expect(() => parseWebhookUrl('https://a:b@8.8.8.8/', dev)).toThrow(/credentials/);
    expect(() => parseWebhookUrl('https://a@8.8.8.8/', prod)).toThrow(/credentials/);
    expect(() => parseWebhookUrl('javascript:alert(1)', dev)).toThrow(UnsafeUrlError);
    expect(() => parseWebhookUrl('/relative', dev)).toThrow(/valid absolute URL/);
    expect(() => parseWebhookUrl(`https://8.8.8.8/${'a'.repeat(2048)}`, prod)).toThrow(/at most/);
  });
});

describe('assertWebhookUrl (registration)', () => {
  it('refuses a name if any of its addresses is not public', async () => {
    const resolve = resolver({ 'mixed.example': ['93.184.215.14', '10.0.0.5'], 'ok.example': ['93.184.215.14', '2606:4700::1'], 'mapped.example': ['::ffff:127.0.0.1'] });
    await expect(assertWebhookUrl('https://mixed.example/', prod, resolve)).rejects.toThrow(/public addresses/);
    await expect(assertWebhookUrl('https://mapped.example/', prod, resolve)).rejects.toThrow(/public addresses/);
    await expect(assertWebhookUrl('https://ok.example/', prod, resolve)).resolves.toBeInstanceOf(URL);
    await expect(assertWebhookUrl('https://nxdomain.example/', prod, resolve)).rejects.toThrow(/does not resolve/);
  });
});

describe('guardedLookup (delivery)', () => {
  const call = (lookup: ReturnType<typeof guardedLookup>, host: string, options: object) =>
    new Promise<{ err: Error | null; address: unknown; family?: number }>((done) => lookup(host, options, (err, address, family) => done({ err, address, family })));

  it('hands the socket exactly the addresses it validated', async () => {
    const lookup = guardedLookup(prod, resolver({ 'ok.example': ['93.184.215.14', '2606:4700::1'] }));
    expect(await call(lookup, 'ok.example', { all: true })).toEqual({ err: null, address: [{ address: '93.184.215.14', family: 4 }, { address: '2606:4700::1', family: 6 }], family: undefined });
    expect(await call(lookup, 'ok.example', {})).toEqual({ err: null, address: '93.184.215.14', family: 4 });
    expect(await call(lookup, 'ok.example', { family: 6 })).toEqual({ err: null, address: '2606:4700::1', family: 6 });
  });

  it('fails the connection when the name now resolves somewhere private (rebinding)', async () => {
    const lookup = guardedLookup(prod, resolver({ 'rebind.example': ['10.0.0.1'] }));
    const r = await call(lookup, 'rebind.example', { all: true });
    expect(r.err).toBeInstanceOf(UnsafeUrlError);
  });
});
