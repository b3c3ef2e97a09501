import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { apiWith, randomAddress, uniq } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';

const baseUrl = inject('baseUrl');

async function nav(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

describe('platform dashboard', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a platform signs up, onboards, manages keys, adds merchants and creates an order', async () => {
    const { context, page } = await newPage(browser);
    await page.goto(baseUrl);
    await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
    await shot(page, 'dashboard-01-sign-in');

    // Sign up.
    await page.getByRole('button', { name: 'Create an account' }).click();
    const email = `${uniq('owner-')}@example.com`;
    await page.getByLabel('Your name').fill('Dana Platform');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Use at least 10 characters.').waitFor();
    await page.getByLabel('Password').fill('a long enough passphrase');
    await page.getByRole('button', { name: 'Create account' }).click();

    // Platform onboarding.
    await page.getByRole('heading', { name: 'Set up your platform' }).waitFor();
    await page.getByLabel('Platform name').fill('Northwind Goods');
    await page.getByLabel('Treasury wallet').fill('0x1234');
    await page.getByRole('button', { name: 'Create platform' }).click();
    await page.getByText('Enter a 0x… wallet address').waitFor();
    await shot(page, 'dashboard-02-onboarding-form');
    const treasury = randomAddress();
    await page.getByLabel('Treasury wallet').fill(treasury);
    await page.getByLabel('Platform fee').fill('300');
    await page.getByRole('button', { name: 'Create platform' }).click();
    await page.getByRole('heading', { name: 'Your platform is ready' }).waitFor();
    const secretKey = await page.getByRole('textbox', { name: 'Secret key' }).inputValue();
    expect(secretKey).toMatch(/^sk_live_/);
    expect(await page.getByLabel('Publishable key').inputValue()).toMatch(/^pk_live_/);
    await shot(page, 'dashboard-03-secret-once');
    const continueBtn = page.getByRole('button', { name: 'Go to the dashboard' });
    expect(await continueBtn.isDisabled()).toBe(true);
    await page.getByLabel('I have stored the secret key somewhere safe').check();
    await continueBtn.click();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    // The sidebar names the platform the dashboard belongs to (from /v1/me).
    await page.locator('.sidebar').getByText('Northwind Goods', { exact: true }).waitFor();
    const me = await apiWith(baseUrl, { key: secretKey })('GET', '/v1/me');
    expect(me.body).toMatchObject({ auth_kind: 'secret_key', onboarded: true });
    await page.getByText('No orders yet.').waitFor();
    await shot(page, 'dashboard-04-home-empty');

    // Keys: roll a new secret key (shown once), prove it works, revoke it.
    await nav(page, 'Developers');
    await page.getByRole('table', { name: 'API keys' }).getByText('Publishable').waitFor();
    // The Gasless card: today's relays, reverted, refused, ETH the relayer spent (none yet).
    const gasless = page.getByRole('table', { name: 'Gasless relays today' }).locator('tbody tr[data-gasless-day]');
    await gasless.waitFor();
    expect(await gasless.locator('td').allInnerTexts()).toEqual([expect.stringMatching(/^cap 1000 · from 0\.50 USDC$/), '0', '0', '0', '0']);
    await page.getByRole('button', { name: 'Create secret key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New secret key' });
    const rolled = await dialog.getByRole('textbox', { name: 'Secret key' }).inputValue();
    expect(rolled).toMatch(/^sk_live_/);
    expect(rolled).not.toBe(secretKey);
    await shot(page, 'dashboard-05-key-rolled', { fullPage: false });
    expect((await apiWith(baseUrl, { key: rolled })('GET', '/v1/me')).status).toBe(200);
    await dialog.getByRole('button', { name: 'I have stored it' }).click();
    const rows = page.getByRole('table', { name: 'API keys' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(3);
    // Active keys first, newest first: the new key heads the list; once revoked it goes after the active ones.
    const rolledRow = rows.filter({ hasText: `…${rolled.slice(-4)}` });
    expect(await rows.first().textContent()).toContain(`…${rolled.slice(-4)}`);
    await rolledRow.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await rolledRow.getByText('Revoked').waitFor();
    expect(await rows.last().textContent()).toContain(`…${rolled.slice(-4)}`);
    // The audit log names the action, the user and the address for the creation and the revocation.
    const log = page.getByRole('table', { name: 'Key audit log' }).locator('tbody tr');
    await expect.poll(() => log.count()).toBe(4);
    expect(await log.first().textContent()).toMatch(/Revoked.*…/);
    expect(await log.nth(1).textContent()).toMatch(/Created.*…/);
    expect(await log.first().textContent()).toContain(email);
    expect((await apiWith(baseUrl, { key: rolled })('GET', '/v1/me')).status).toBe(401);
    expect((await apiWith(baseUrl, { key: secretKey })('GET', '/v1/me')).status).toBe(200);
    await shot(page, 'dashboard-06-keys');

    // Merchants: direct creation and an invitation link.
    await nav(page, 'Merchants');
    await page.getByText('No merchants yet').waitFor();
    await page.getByRole('button', { name: 'Add directly' }).click();
    const add = page.getByRole('dialog', { name: 'Add a merchant' });
    await add.getByLabel('Merchant ID').fill('shop_42');
    await add.getByLabel('Display name').fill('Lakeside Books');
    await add.getByLabel('Payout wallet').fill(randomAddress());
    await add.getByRole('button', { name: 'Add merchant' }).click();
    await page.getByRole('table', { name: 'Merchants' }).getByText('Lakeside Books').waitFor();
    await page.getByRole('button', { name: 'Invite merchant' }).click();
    const invite = page.getByRole('dialog', { name: 'Invite a merchant' });
    await invite.getByLabel('Merchant ID').fill('shop_43');
    await invite.getByLabel('Suggested name').fill('Ridge Outfitters');
    await invite.getByRole('button', { name: 'Create invitation' }).click();
    const link = await page.getByRole('dialog', { name: 'Invitation created' }).getByLabel('Onboarding link').inputValue();
    expect(link).toMatch(/\/onboard\/moi_live_/);
    await shot(page, 'dashboard-07-invitation-link', { fullPage: false });
    await page.getByRole('dialog', { name: 'Invitation created' }).getByRole('button', { name: 'Done' }).click();
    await page.getByRole('table', { name: 'Invitations' }).getByText('Ridge Outfitters').waitFor();
    await shot(page, 'dashboard-08-merchants');

    // Orders: create one from the dashboard, see its split, find it with the state filter.
    await nav(page, 'Orders');
    await page.getByRole('button', { name: 'New order' }).first().click();
    const order = page.getByRole('dialog', { name: 'New order' });
    await order.getByLabel('Merchant', { exact: true }).selectOption('shop_42');
    await order.getByLabel('Order number').fill('NW-1001');
    await order.getByLabel('Amount').fill('49.90');
    await shot(page, 'dashboard-09-new-order', { fullPage: false });
    await order.getByRole('button', { name: 'Create order' }).click();
    await page.getByText('Order NW-1001', { exact: true }).waitFor();
    await page.getByRole('heading', { level: 1, name: /49\.90/ }).waitFor();
    await page.getByText('Total paid').waitFor();
    const orderId = new URL(page.url()).pathname.split('/').pop()!;
    expect(orderId).toMatch(/^ord_/);
    await shot(page, 'dashboard-10-order-detail');
    const apiOrder = await apiWith(baseUrl, { key: secretKey })('GET', `/v1/orders/${orderId}`);
    expect(apiOrder.body).toMatchObject({ order_no: 'NW-1001', amount: '49.90', merchant_id: 'shop_42', state: 'pending_payment' });

    await page.getByRole('link', { name: '← Orders' }).click();
    await page.getByRole('button', { name: 'Pending payment', exact: true }).click();
    await page.getByRole('table', { name: 'Orders' }).getByText('NW-1001').waitFor();
    await page.getByRole('button', { name: 'Confirmed', exact: true }).click();
    await page.getByText('No confirmed orders').waitFor();
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await page.getByRole('table', { name: 'Orders' }).getByText('NW-1001').waitFor();
    await shot(page, 'dashboard-11-orders');

    // Webhooks: endpoint with its secret shown once; events list.
    await nav(page, 'Webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).first().click();
    const hook = page.getByRole('dialog', { name: 'Add a webhook endpoint' });
    await hook.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hooks');
    await shot(page, 'dashboard-12-new-endpoint', { fullPage: false });
    await hook.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByRole('dialog', { name: 'Endpoint added' }).getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('dialog', { name: 'Endpoint added' }).getByRole('button', { name: 'Done' }).click();
    await page.getByRole('table', { name: 'Webhook endpoints' }).getByText('http://127.0.0.1:9/hooks').click();
    await page.getByRole('heading', { name: 'http://127.0.0.1:9/hooks' }).waitFor();
    await shot(page, 'dashboard-13-endpoint');
    await nav(page, 'Events');
    await page.getByRole('table', { name: 'Events' }).getByText('merchant.created').first().waitFor();
    await shot(page, 'dashboard-14-events');

    await nav(page, 'Refunds');
    await shot(page, 'dashboard-15-refunds');

    await nav(page, 'Home');
    await page.getByRole('table').getByText('NW-1001').waitFor();
    await shot(page, 'dashboard-16-home');

    // Sign out returns to the sign-in page.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough passphrase');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await context.close();

    // The same dashboard on a phone.
    const mobile = await newPage(browser, { mobile: true });
    await mobile.page.goto(baseUrl);
    await mobile.page.getByLabel('Email').fill(email);
    await mobile.page.getByLabel('Password').fill('a long enough passphrase');
    await mobile.page.getByRole('button', { name: 'Sign in' }).click();
    await mobile.page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await mobile.page.getByRole('table').getByText('NW-1001').waitFor();
    await shot(mobile.page, 'dashboard-17-mobile-home');
    await mobile.page.getByRole('button', { name: 'Open navigation' }).click();
    await shot(mobile.page, 'dashboard-18-mobile-nav', { fullPage: false });
    await mobile.context.close();
  });
});
