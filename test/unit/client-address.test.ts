import { describe, expect, it } from 'vitest';
import { addressKey, clientAddress } from '../../src/api/client-address.js';

describe('clientAddress', () => {
  it('with no trusted proxy, is the TCP peer whatever X-Forwarded-For says', () => {
    expect(clientAddress('203.0.113.9', undefined, 0)).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', '198.51.100.1', 0)).toBe('203.0.113.9');
    expect(clientAddress(null, '198.51.100.1', 0)).toBeNull();
  });

  it('with n proxies, is the address n hops back: what the client wrote to the left never counts', () => {
    // One proxy (10.0.0.2) appended the address it saw; the client prepended a lie.
    expect(clientAddress('10.0.0.2', '1.2.3.4, 203.0.113.9', 1)).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', '203.0.113.9', 1)).toBe('203.0.113.9');
    // Two proxies: CDN edge (appends the client) → load balancer (appends the edge) → us.
    expect(clientAddress('10.0.0.3', '1.2.3.4, 203.0.113.9, 172.16.0.5', 2)).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.3', ' 203.0.113.9 ,172.16.0.5 ', 2)).toBe('203.0.113.9');
  });

  it('with fewer addresses than proxies, is the furthest one known (never one the client could choose beyond it)', () => {
    expect(clientAddress('10.0.0.2', undefined, 1)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', '', 1)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.2', '172.16.0.5', 3)).toBe('172.16.0.5');
    expect(clientAddress(null, undefined, 1)).toBeNull();
  });
});

describe('addressKey (what a rate limit counts an address under)', () => {
  it('keeps IPv4 as is and turns an IPv4-mapped IPv6 address into its IPv4', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::FFFF:cb00:7109')).toBe('203.0.113.9');
    expect(addressKey('0:0:0:0:0:ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  it('counts IPv6 by its /64, whatever the spelling', () => {
    const key = '2001:db8:1:2::/64';
    for (const a of ['2001:db8:1:2::1', '2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0:0:0:9', '2001:db8:1:2::1%eth0', '2001:db8:1:2:a:b:1.2.3.4']) {
      expect(addressKey(a)).toBe(key);
    }
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('leaves what is not an address as written', () => {
    expect(addressKey('unknown')).toBe('unknown');
    expect(addressKey('203.0.113.9:4711')).toBe('203.0.113.9:4711');
  });
});
