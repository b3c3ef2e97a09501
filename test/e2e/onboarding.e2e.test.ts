import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { TestWallet } from './helpers/wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');

describe('merchant onboarding page', () => {
  let browser: Browser;
  let platform: Platform;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Harbor Market' });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a merchant connects a wallet, names the shop, signs, and appears in GET /v1/merchants', async () => {
    const externalId = uniq('bakery_');
    const invitation = await expectStatus(
      platform.api('POST', '/v1/merchants/invitations', { external_id: externalId, suggested_name: 'Corner Bakery', chain_id: 84532, reserve_bps: 500 }),
      201,
    );
    expect(invitation.url).toMatch(/\/onboard\/moi_live_/);
    const link = `${baseUrl}${new URL(invitation.url).pathname}`;

    // Without any wallet in the browser the page explains what to do.
    {
      const { context, page } = await newPage(browser);
      await page.goto(link);
      await page.getByText('No wallet found in this browser').waitFor();
      await shot(page, 'onboard-1-no-wallet');
      await context.close();
    }

    const merchantAccount = devnet.accounts[2]!;
    const wallet = new TestWallet({ privateKey: merchantAccount.private_key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Get paid by Harbor Market' }).waitFor();
    await page.getByRole('button', { name: /Test Wallet/ }).waitFor();
    await shot(page, 'onboard-2-connect');

    await page.getByRole('button', { name: /Test Wallet/ }).click();
    const nameInput = page.getByRole('textbox', { name: 'Display name' });
    await nameInput.waitFor();
    expect(await nameInput.inputValue()).toBe('Corner Bakery');
    await nameInput.fill('Corner Bakery & Café');
    await shot(page, 'onboard-3-name');
    await page.getByRole('button', { name: 'Continue' }).click();

    const message = page.getByLabel('Message to sign');
    await message.waitFor();
    const text = await message.textContent();
    expect(text).toContain(merchantAccount.address);
    expect(text).toContain(externalId);
    await shot(page, 'onboard-4-sign');

    await page.getByRole('button', { name: 'Sign and finish' }).click();
    await page.getByRole('heading', { name: "You're all set" }).waitFor();
    expect(wallet.count('personal_sign')).toBe(1);
    await shot(page, 'onboard-5-done');

    const merchants = await expectStatus(platform.api('GET', '/v1/merchants?limit=100'), 200);
    const merchant = merchants.data.find((m: { external_id: string }) => m.external_id === externalId);
    expect(merchant).toBeDefined();
    expect(merchant.merchant_wallet.toLowerCase()).toBe(merchantAccount.address.toLowerCase());
    expect(merchant.name).toBe('Corner Bakery & Café');
    expect(merchant.state).toBe('active');

    const invitations = await expectStatus(platform.api('GET', '/v1/merchants/invitations'), 200);
    const inv = invitations.data.find((i: { id: string }) => i.id === invitation.id);
    expect(inv.state).toBe('completed');
    expect(inv.wallet.toLowerCase()).toBe(merchantAccount.address.toLowerCase());

    // The link is single-use: opening it again shows the used state.
    await page.goto(link);
    await page.getByRole('heading', { name: 'This invitation has already been used' }).waitFor();
    await shot(page, 'onboard-6-used');
    await context.close();
  });

  it('unknown and expired invitation links each get their own page', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(`${baseUrl}/onboard/moi_live_doesnotexist000000000000`);
    await page.getByRole('heading', { name: 'Invitation not found' }).waitFor();
    await shot(page, 'onboard-7-not-found');

    // Expiry takes at least a minute on the server; the page's handling of the API's 410 is what is checked.
    const invitation = await expectStatus(
      platform.api('POST', '/v1/merchants/invitations', { external_id: uniq('late_'), suggested_name: 'Late Shop', chain_id: 84532, reserve_bps: 0, expires_in_seconds: 60 }),
      201,
    );
    const path = new URL(invitation.url).pathname;
    await page.route(`**/v1/merchants/invitations/${invitation.token}*`, (route) =>
      route.fulfill({
        status: 410,
        contentType: 'application/json',
        body: JSON.stringify({ error: { type: 'invalid_request_error', code: 'invitation_expired', message: 'This invitation has expired.', request_id: 'req_e2e' } }),
      }),
    );
    await page.goto(`${baseUrl}${path}`);
    await page.getByRole('heading', { name: 'This invitation has expired' }).waitFor();
    await shot(page, 'onboard-8-expired');
    await context.close();
  });
});
