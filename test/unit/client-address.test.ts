import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/api/client-address.js';

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
