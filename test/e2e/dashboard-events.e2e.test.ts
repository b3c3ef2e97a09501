import type { Browser } from 'playwright-core';
import { createWalletClient, erc20Abi, http, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { dashboardChain, signIn, until } from './helpers/dashboard-wallet.js';
import { LocalMerchant, verifySignature } from './helpers/receiver.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = dashboardChain(devnet);
const BUYER = devnet.accounts[8]!;
const FUNDER = 9;
const DAY_MS = 86_400_000;

type Order = { id: string; order_no: string; state: string; created_at: string; deadline_at: string; pay_to: string; eip712: { message: Record<string, unknown> }; signature: string };
type EventDetail = { id: string; type: string; data: { object: Record<string, unknown> }; deliveries: { id: string; attempts: number }[] };
type Clock = { chain_time: number; block_number: number };

/** A rendered "Jan 15, 2027, 09:00 AM" (the dashboard's formatDate, en-US in UTC here) → epoch ms. */
const parseShown = (text: string | null) => {
  const ms = Date.parse((text ?? '').split(' · ')[0]!.trim());
  expect(ms, `a date: ${text}`).not.toBeNaN();
  return ms;
};
const startOfDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** Issue "A platform's working day", point 7 and point 2: the event detail page, event → object links, typed test events, the chain clock. */
describe('dashboard events: detail page, links to objects, typed test events, chain clock', () => {
  let browser: Browser;
  let platform: Platform;
  let receiver: LocalMerchant;
  let endpoint: { id: string; secret: string };
  const merchantId = uniq('kites_');

  beforeAll(async () => {
    browser = await launchBrowser();
    receiver = await new LocalMerchant().start();
    platform = await createPlatform(baseUrl, { name: 'Eventful Goods', feeBps: 200, reserveBps: 1000 });
    endpoint = await expectStatus(platform.api('POST', '/v1/webhooks/endpoints', { url: `${receiver.url}/hooks`, subscribed_events: ['order.confirmed'] }), 201);
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Eventful Kites', merchant_wallet: randomAddress(), chain_id: 84532, reserve_bps: 1000 }), 201);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
  });

  const signedIn = async (path: string) => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}${path}`);
    return { context, page };
  };

  it('a test event of the type picked: signed order.confirmed sample, listed, linked to its detail page; Resend there makes a second attempt', async () => {
    const { context, page } = await signedIn(`/dashboard/webhooks/${endpoint.id}`);
    const form = page.getByRole('form', { name: 'Send a test event' });
    const picker = form.getByLabel('Event type');
    expect(await picker.inputValue()).toBe('test.ping');
    // The picker and its button on one line: same bottom edge, same height.
    const [sel, btn] = await Promise.all([picker.boundingBox(), form.getByRole('button', { name: 'Send test event' }).boundingBox()]);
    expect(Math.abs(sel!.y + sel!.height - (btn!.y + btn!.height))).toBeLessThan(1.5);
    expect(Math.abs(sel!.height - btn!.height)).toBeLessThan(1.5);
    await picker.selectOption('order.confirmed');
    await form.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('status').filter({ hasText: 'Test event sent' }).getByText('A signed order.confirmed was queued.').waitFor();
    await page.getByRole('link', { name: 'Inspect the delivery' }).waitFor();

    const hit = await receiver.waitFor((r) => r.body.type === 'order.confirmed');
    expect(verifySignature(hit, endpoint.secret)).toBe(true);
    expect(hit.body.data.object).toMatchObject({ object: 'order', test: true });
    expect(String(hit.body.data.object.id)).toMatch(/^ord_test_/);
    const eventId = hit.body.id;
    await shot(page, 'dashboard-events-1-typed-test-event');

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Events' }).click();
    const row = page.getByRole('table', { name: 'Events' }).getByRole('row').filter({ hasText: eventId });
    await row.getByText('order.confirmed').waitFor();
    expect(await row.getByRole('link').count()).toBe(1); // the event id only: the sample's ord_test_ id names no order
    const link = row.getByRole('link', { name: eventId });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/dashboard/events/${eventId}`);
    await page.getByRole('heading', { level: 1, name: 'order.confirmed' }).waitFor();
    await expect.poll(() => page.getByLabel('Payload').textContent()).toContain(String(hit.body.data.object.id));
    expect(JSON.parse((await page.getByLabel('Payload').textContent())!)).toEqual(hit.body.data);
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    await expect.poll(() => deliveries.getByRole('row').count()).toBe(2); // header + the one delivery
    await deliveries.getByRole('link', { name: `${receiver.url}/hooks` }).waitFor();
    await expect.poll(() => deliveries.getByTestId('delivery-attempts').textContent()).toBe('1');
    await shot(page, 'dashboard-events-2-detail');

    await deliveries.getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('status').filter({ hasText: 'Queued again' }).waitFor();
    await expect.poll(() => receiver.received.filter((r) => r.body.id === eventId).length, { timeout: 30_000 }).toBe(2);
    await expect.poll(() => deliveries.getByTestId('delivery-attempts').textContent(), { timeout: 20_000 }).toBe('2');
    const detail = await expectStatus<EventDetail>(platform.api('GET', `/v1/events/${eventId}`), 200);
    expect(detail.deliveries).toEqual([expect.objectContaining({ attempts: 2 })]);
    await deliveries.getByRole('link', { name: `${receiver.url}/hooks` }).click();
    await page.waitForURL(`**/dashboard/webhooks/deliveries/${detail.deliveries[0]!.id}`);
    await page.getByRole('article', { name: 'Attempt 2' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByRole('article', { name: /^Attempt \d$/ }).count()).toBe(2);
    await context.close();
  });

  it('an unknown event id: the API\'s 404 in words; an event no endpoint subscribed to has no deliveries', async () => {
    const { context, page } = await signedIn('/dashboard/events/evt_doesnotexist000000');
    await page.getByRole('alert').filter({ hasText: 'Could not load this event' }).getByText(/no such event/i).waitFor();
    const test = await expectStatus<{ id: string }>(platform.api('POST', '/v1/events/test', { type: 'merchant.created' }), 201);
    await page.goto(`${baseUrl}/dashboard/events/${test.id}`);
    await page.getByText('No endpoint was subscribed to this event type').waitFor();
    await page.getByText('(test sample: no such object)').waitFor();
    await context.close();
  });

  it('a paid order\'s order.confirmed row links to the order\'s page', async () => {
    const order = await expectStatus<Order>(platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('EV-'), chain_id: 84532, token: 'USDC', amount: '3.00' }), 201);
    await chain.payOrder(BUYER.private_key, order);
    await until<Order>(platform.api, `/v1/orders/${order.id}`, (o) => o.state === 'confirmed');
    const list = await until<{ data: EventDetail[] }>(platform.api, '/v1/events?type=order.confirmed', (l) => l.data.some((e) => e.data.object.id === order.id));
    const event = list.data.find((e) => e.data.object.id === order.id)!;

    const { context, page } = await signedIn('/dashboard/events');
    const row = page.getByRole('table', { name: 'Events' }).getByRole('row').filter({ hasText: event.id });
    await row.getByRole('link', { name: order.id }).click();
    await page.waitForURL(`**/dashboard/orders/${order.id}`);
    await page.getByText(order.order_no).first().waitFor();
    // And from the event's own page.
    await page.goto(`${baseUrl}/dashboard/events/${event.id}`);
    await page.getByRole('link', { name: order.id }).click();
    await page.waitForURL(`**/dashboard/orders/${order.id}`);
    await context.close();
  });

  it('chain clock moved 40 days: the top bar says so, a new order\'s deadline follows the chain, a signed subscription end stays put', async () => {
    const before = await expectStatus<Clock>(platform.api('GET', '/v1/test_helpers/clock'), 200);
    const moved = await expectStatus<Clock & { advanced_by: number }>(platform.api('POST', '/v1/test_helpers/advance_time', { seconds: 40 * 86_400 }), 200);
    expect(moved.chain_time - before.chain_time).toBeGreaterThanOrEqual(40 * 86_400);
    const wallToday = startOfDay(Date.now());

    const order = await expectStatus<Order>(platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('EV-'), chain_id: 84532, token: 'USDC', amount: '2.00', expires_in_seconds: 7200 }), 201);
    const clock = await expectStatus<Clock>(platform.api('GET', '/v1/test_helpers/clock'), 200);
    // The chain's head is up to a block behind the wall clock: 40 days less a second is "+40 d" (to the hour).
    const offsetDays = Math.floor(Math.round((clock.chain_time * 1000 - Date.now()) / 3_600_000) / 24);
    expect(offsetDays).toBeGreaterThanOrEqual(40);

    const { context, page } = await signedIn(`/dashboard/orders/${order.id}`);
    const note = page.locator('[data-testid="chain-clock-note"]:visible');
    await expect.poll(() => note.textContent()).toMatch(new RegExp(`^Chain clock \\+${offsetDays} d( \\d{1,2} h)?$`));
    expect(await note.textContent()).not.toMatch(/24 h/);
    const payBefore = page.getByTestId('pay-before');
    await payBefore.waitFor();
    const deadline = parseShown(await payBefore.textContent());
    // The deadline is on the chain's clock (2 h after it), and said to be 2 hours away from the chain's now, not 40 days.
    expect(Math.abs(deadline - (clock.chain_time * 1000 + 7200_000))).toBeLessThan(5 * 60_000);
    expect(deadline).toBeGreaterThanOrEqual(wallToday + 40 * DAY_MS);
    expect(await payBefore.textContent()).toMatch(/· in (2 hours|1\d\d minutes|1 hour)$/);
    // created_at is stamped by the service's own clock (docs/decisions.md): today, not the chain's day.
    const created = page.getByRole('term').filter({ hasText: /^Created$/ }).locator('xpath=following-sibling::dd[1]');
    expect(Math.abs(parseShown(await created.textContent()) - Date.parse(order.created_at))).toBeLessThan(60_000);
    await shot(page, 'dashboard-events-3-chain-clock-order');
    await context.close();

    await signedSubscriptionEndStaysPut();
  }, 180_000);

  /** A subscription with an end, signed by a payer (as its hosted page would), then the manage page across a 3-day move. */
  async function signedSubscriptionEndStaysPut() {
    const sub = await expectStatus<{ id: string; url: string }>(platform.api('POST', '/v1/subscriptions', { merchant_id: merchantId, chain_id: 84532, token: 'USDC', amount: '1.50', interval: 'month', max_periods: 3 }), 201);
    const token = new URL(sub.url).pathname.split('/').pop()!;
    const payer = await freshPayer();
    const read = await expectStatus<any>(platform.api('GET', `/v1/subscriptions/authorize/${token}`), 200);
    const t = read.typed_data;
    const message = { ...t.message, payer: payer.address, amount: BigInt(t.message.amount), salt: BigInt(t.message.salt) };
    const signature = await privateKeyToAccount(payer.key).signTypedData({ domain: t.domain, types: t.types, primaryType: 'SpendPermission', message });
    await expectStatus(platform.api('POST', `/v1/subscriptions/authorize/${token}`, { payer: payer.address, start: t.message.start, signature }), 200);
    const signed = await expectStatus<any>(platform.api('GET', `/v1/subscriptions/authorize/${token}`), 200);
    const endAt: string = signed.authorized.end_at;
    expect(endAt).toBeTruthy();

    const { context, page } = await newPage(browser);
    await page.goto(`${baseUrl}${new URL(sub.url).pathname}/manage`);
    const end = page.getByTestId('subscription-end');
    await end.getByText(/^after 3 charges \(/).waitFor();
    const shownBefore = (await end.textContent())!;
    const endOf = (s: string) => Date.parse(/\((.+)\)/.exec(s)![1]!);
    expect(Math.abs(endOf(shownBefore) - Date.parse(endAt))).toBeLessThan(60_000);

    await expectStatus(platform.api('POST', '/v1/test_helpers/advance_time', { seconds: 3 * 86_400 }), 200);
    await page.reload();
    await end.getByText(/^after 3 charges \(/).waitFor();
    expect(await end.textContent()).toBe(shownBefore);
    const after = await expectStatus<any>(platform.api('GET', `/v1/subscriptions/authorize/${token}`), 200);
    expect(after.authorized.end_at).toBe(endAt);
    await shot(page, 'dashboard-events-4-subscription-end');
    await context.close();
  }
});

/** A payer of its own: devnet ETH for gas and 10 USDC from a dev account (no allowance: the signature is what is tested). */
async function freshPayer(): Promise<{ key: Hex; address: Address }> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await chain.publicClient.request({ method: 'anvil_setBalance' as never, params: [address, `0x${parseEther('1').toString(16)}`] as never });
  const funder = createWalletClient({ account: privateKeyToAccount(devnet.accounts[FUNDER]!.private_key), chain: chain.chain, transport: http(devnet.rpc_url) });
  const hash = await funder.writeContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'transfer', args: [address, 10_000_000n] });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return { key, address };
}
