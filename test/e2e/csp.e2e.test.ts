import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { cspViolations, launchBrowser, newPage } from './helpers/browser.js';
import { signIn } from './helpers/dashboard-wallet.js';
import { TestWallet } from './helpers/wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');

/**
 * Issue 26 item 9: every HTML page carries a Content-Security-Policy, and the pages work under it in Chromium.
 * Each page is opened and used (a wallet connected where there is one); the header must name the required
 * directives, and no violation may be reported (test/e2e/setup.ts checks the same after every e2e test). Then the
 * policy is shown to be enforced: an inline script, a fetch to another origin and framing are refused (`unsafe-eval`
 * is checked in the header: Playwright's evaluate, the only way to run a test's code in the page, is exempt from it).
 */
function directives(header: string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name, values);
  }
  return out;
}

function expectPolicy(res: Response | null, opts: { wallet: boolean }) {
  expect(res?.status()).toBe(200);
  const csp = directives(res?.headers()['content-security-policy']);
  expect(csp.get('default-src')).toEqual(["'self'"]);
  expect(csp.get('script-src')).toEqual(["'self'"]);
  expect(csp.get('object-src')).toEqual(["'none'"]);
  expect(csp.get('base-uri')).toEqual(["'self'"]);
  expect(csp.get('form-action')).toEqual(["'self'"]);
  expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  expect([...csp.values()].flat()).not.toContain("'unsafe-eval'");
  const connect = csp.get('connect-src') ?? [];
  expect(connect[0]).toBe("'self'");
  // The devnet's anvil, which the checkout page reads from (session chain.rpc_url).
  if (opts.wallet) expect(connect).toContain(new URL(devnet.rpc_url).origin);
  expect(res?.headers()['x-frame-options']).toBe('DENY');
}

describe('Content-Security-Policy of the hosted pages', () => {
  let browser: Browser;
  let platform: Platform;
  let merchantId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Quay Street Market' });
    merchantId = uniq('csp_');
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Quay Books', merchant_wallet: randomAddress(), chain_id: 84532, reserve_bps: 500 }), 201);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const withWallet = async (index: number) => {
    const wallet = new TestWallet({ privateKey: devnet.accounts[index]!.private_key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    return { context, page };
  };

  it('the dashboard: sign-in page and signed-in pages, with the header and no violation', async () => {
    const { context, page } = await newPage(browser);
    expectPolicy(await page.goto(baseUrl), { wallet: true });
    await signIn(page, baseUrl, platform.email);
    for (const path of ['/dashboard/orders', '/dashboard/refunds', '/dashboard/balances', '/dashboard/settlements', '/dashboard/merchants', '/dashboard/webhooks', '/dashboard/events', '/dashboard/developers', '/dashboard/developers/logs']) {
      expectPolicy(await page.goto(`${baseUrl}${path}`), { wallet: true });
      await page.getByRole('heading', { level: 1 }).first().waitFor();
    }
    await page.waitForLoadState('networkidle');
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('checkout: the page loads, a wallet connects and the page reads the chain, with no violation', async () => {
    const session = await expectStatus(
      platform.api('POST', '/v1/checkout/sessions', { merchant_id: merchantId, order_no: uniq('CSP-'), chain_id: 84532, token: 'USDC', amount: '4.20', success_url: 'https://shop.example/thanks' }),
      201,
    );
    const { context, page } = await withWallet(4);
    expectPolicy(await page.goto(`${baseUrl}${new URL(session.url).pathname}`), { wallet: true });
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await page.locator('[data-method]').waitFor();
    await page.waitForLoadState('networkidle');
    expect(cspViolations).toEqual([]);
    await expectEnforced(page);
    await context.close();
  });

  it('onboarding: the page loads and a wallet connects, with no violation', async () => {
    const invitation = await expectStatus(platform.api('POST', '/v1/merchants/invitations', { external_id: uniq('csp_inv_'), suggested_name: 'Quay Café', chain_id: 84532, reserve_bps: 500 }), 201);
    const { context, page } = await withWallet(5);
    expectPolicy(await page.goto(`${baseUrl}${new URL(invitation.url).pathname}`), { wallet: true });
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await page.getByRole('textbox', { name: 'Display name' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('the API reference (/docs): Swagger UI renders the document, with no violation', async () => {
    const { context, page } = await newPage(browser);
    expectPolicy(await page.goto(`${baseUrl}/docs`), { wallet: false });
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(20);
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    await page.waitForLoadState('networkidle');
    expect(cspViolations).toEqual([]);
    await expectEnforced(page);
    await context.close();
  });

  it('no page can be framed (a page without the headers, for comparison, can)', async () => {
    const plain = createServer((_req, res) => res.end('<p id="plain">framed</p>'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const { context, page } = await newPage(browser);
    try {
      const framed = async (url: string) => {
        await page.setContent(`<iframe src="${url}"></iframe>`, { waitUntil: 'load' });
        const frame = await (await page.$('iframe'))!.contentFrame();
        await frame!.waitForLoadState();
        return frame!.url();
      };
      const control = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
      expect(await framed(control)).toBe(control);
      for (const path of ['/docs', '/', '/dashboard/orders']) expect(await framed(`${baseUrl}${path}`)).toMatch(/^chrome-error:/);
      await expect.poll(() => cspViolations.filter((v) => v.includes("frame-ancestors 'none'")).length).toBe(3);
      cspViolations.splice(0);
    } finally {
      await context.close();
      plain.close();
    }
  });
});

/** The policy is enforced, not only sent: each attempt below is refused and reported as a violation. */
async function expectEnforced(page: Page) {
  const inline = await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__cspInjected = true';
    document.body.appendChild(s);
    return (window as unknown as { __cspInjected?: boolean }).__cspInjected ?? false;
  });
  expect(inline).toBe(false);
  const fetched = await page.evaluate(() => fetch('http://127.0.0.1:9/').then(() => 'fetched', (err: Error) => err.name));
  expect(fetched).toBe('TypeError');
  // Reports arrive after the calls return: wait for all of them, then take them out of the run's list.
  const reported = [
    /Executing inline script violates .*script-src 'self'/, /securitypolicyviolation: script-src-elem blocked inline/,
    /Connecting to 'http:\/\/127\.0\.0\.1:9\/' violates .*connect-src/, /Fetch API cannot load http:\/\/127\.0\.0\.1:9\//,
    /securitypolicyviolation: connect-src blocked http:\/\/127\.0\.0\.1:9\//,
  ];
  await expect.poll(() => reported.every((r) => cspViolations.some((v) => r.test(v)))).toBe(true);
  cspViolations.splice(0);
}
