import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy, walletRpcOrigins } from '../../src/api/csp.js';
import { testConfig, API_ONLY_CHAIN, createHarness, type Harness } from '../helpers/harness.js';

/**
 * Issue 26 item 9: the HTML pages carry a Content-Security-Policy. The hosted app pages are checked in Chromium
 * (test/e2e/csp.e2e.test.ts, with every e2e page watched for violations); here the docs page, which is always
 * mounted, and what the policy allows the wallet code to reach on the devnet and in production.
 */
function directives(header: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name, values);
  }
  return out;
}

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('GET /docs', () => {
  it('is served under a strict policy: no inline script or style, no eval, not frameable', async () => {
    const res = await h.request('GET', '/docs');
    expect(res.status).toBe(200);
    const csp = directives(res.headers.get('content-security-policy'));
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'", 'http://localhost:3000']);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'self'"]);
    expect(csp.get('form-action')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.text).not.toMatch(/unsafe|<style|<script>|\sstyle=|\son[a-z]+=/i);
    const css = await h.request('GET', '/docs/assets/page.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });
});

describe('the hosted pages\' policy', () => {
  it('never allows eval or inline scripts, and allows inline <style> only where asked', () => {
    for (const inlineStyles of [true, false]) {
      const csp = directives(contentSecurityPolicy({ connect: ['http://127.0.0.1:8545'], inlineStyles }));
      expect(csp.get('script-src')).toEqual(["'self'"]);
      expect([...csp.values()].flat()).not.toContain("'unsafe-eval'");
      expect(csp.get('style-src')).toEqual(inlineStyles ? ["'self'", "'unsafe-inline'"] : ["'self'"]);
      expect(csp.get('connect-src')).toEqual(["'self'", 'http://127.0.0.1:8545']);
    }
  });

  it('lets the wallet code reach the devnet\'s anvil on the devnet, and the chains\' public RPCs in production', () => {
    const devnet = testConfig({}, [{ ...API_ONLY_CHAIN, rpcUrl: 'http://127.0.0.1:8545/' }]);
    expect(devnet.env).toBe('devnet');
    expect(walletRpcOrigins(devnet)).toEqual(['http://127.0.0.1:8545', 'https://rpc.wallet.coinbase.com']);
    // A production RPC URL may carry a provider key: it is never handed to pages, nor named in their policy.
    const production = testConfig({ env: 'production' }, [
      { ...API_ONLY_CHAIN, rpcUrl: 'https://base-sepolia.example-provider.io/v2/SECRET' },
      { ...API_ONLY_CHAIN, chainId: 8453, rpcUrl: 'https://base.example-provider.io/v2/SECRET' },
    ]);
    expect(walletRpcOrigins(production)).toEqual(['https://sepolia.base.org', 'https://mainnet.base.org', 'https://rpc.wallet.coinbase.com']);
  });
});
