import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { signIn, until } from './helpers/dashboard-wallet.js';

const baseUrl = inject('baseUrl');

type Endpoint = { id: string; url: string; status: string; description?: string | null; subscribed_events: string[] };
type Delivery = { id: string; status?: string; state?: string; attempt_history: { response: { status: number } | null }[] };

/** A webhook receiver whose answer the test sets: 503 with a body the inspector must show, then 200. */
class Receiver {
  status = 503;
  readonly hits: { headers: Record<string, unknown>; body: string }[] = [];
  private server!: Server;
  url = '';
  async start() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(this.status, { 'content-type': 'text/plain', 'x-receiver': 'tidewater' }).end(this.status === 200 ? 'ok' : 'receiver down for maintenance');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  stop() {
    return new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe('dashboard webhook tools: test event, delivery inspector and resend, edit, pause and resume, event filters', () => {
  let browser: Browser;
  let platform: Platform;
  let receiver: Receiver;
  let endpoint: Endpoint;

  beforeAll(async () => {
    browser = await launchBrowser();
    receiver = await new Receiver().start();
    platform = await createPlatform(baseUrl, { name: 'Harbor Hooks' });
    endpoint = await expectStatus<Endpoint>(platform.api('POST', '/v1/webhooks/endpoints', { url: `${receiver.url}/hooks`, subscribed_events: ['order.confirmed'] }), 201);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
  });

  it('a test event to a failing endpoint: the inspector shows the request, the 503 answer and its body; Resend succeeds', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/webhooks/${endpoint.id}`);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event sent').waitFor();
    await page.getByRole('link', { name: 'Inspect the delivery' }).click();
    const first = page.getByRole('article', { name: 'Attempt 1' });
    await first.getByRole('heading', { level: 3, name: /HTTP 503/ }).waitFor({ timeout: 30_000 });
    expect(receiver.hits.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(receiver.hits[0]!.body).type).toBe('test.ping');
    await expect.poll(() => first.getByLabel('Request body').textContent()).toContain('test.ping');
    await expect.poll(() => first.getByLabel('Request headers').textContent()).toMatch(/signature/i);
    await expect.poll(() => first.getByLabel('Response headers').textContent()).toContain('x-receiver: tidewater');
    await expect.poll(() => first.getByLabel('Response body (first 4 KB)').textContent()).toBe('receiver down for maintenance');
    await shot(page, 'dashboard-webhooks-1-inspector');

    receiver.status = 200;
    await page.getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('heading', { level: 3, name: /HTTP 200/ }).waitFor({ timeout: 30_000 });
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const delivery = await until<Delivery>(platform.api, `/v1/webhooks/deliveries/${id}`, (d) => d.attempt_history.some((a) => a.response?.status === 200));
    expect(delivery.attempt_history[0]!.response?.status).toBe(503);
    expect(delivery.attempt_history.at(-1)!.response?.status).toBe(200);
    await context.close();
  });

  it('edits the endpoint (URL, events, description), then pauses and resumes it', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/webhooks/${endpoint.id}`);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit endpoint' });
    await dialog.getByLabel('Endpoint URL').fill(`${receiver.url}/hooks/v2`);
    await dialog.getByLabel('Description').fill('Order fulfilment');
    await dialog.getByLabel('refund.completed').check();
    await dialog.getByLabel('Endpoint URL').fill('not a url');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('A full https:// address of your server.').waitFor();
    await dialog.getByLabel('Endpoint URL').fill(`${receiver.url}/hooks/v2`);
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { level: 1, name: `${receiver.url}/hooks/v2` }).waitFor();
    await page.getByText('Order fulfilment').waitFor();
    const saved = await expectStatus<Endpoint>(platform.api('GET', `/v1/webhooks/endpoints/${endpoint.id}`), 200);
    expect(saved).toMatchObject({ url: `${receiver.url}/hooks/v2`, description: 'Order fulfilment' });
    expect([...saved.subscribed_events].sort()).toEqual(['order.confirmed', 'refund.completed']);

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    expect((await expectStatus<Endpoint>(platform.api('GET', `/v1/webhooks/endpoints/${endpoint.id}`), 200)).status).toBe('paused');
    await shot(page, 'dashboard-webhooks-2-paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    expect((await expectStatus<Endpoint>(platform.api('GET', `/v1/webhooks/endpoints/${endpoint.id}`), 200)).status).toBe('enabled');
    await context.close();
  });

  it('events: filtered by type and by delivery outcome', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/events`);
    const table = page.getByRole('table', { name: 'Events' });
    await table.getByText('test.ping').first().waitFor();
    await page.getByLabel('Event type').selectOption('order.confirmed');
    await page.getByText('No events').waitFor();
    await page.getByLabel('Event type').selectOption('');
    await table.getByText('test.ping').first().waitFor();
    await page.getByLabel('Delivery outcome').selectOption('failed');
    await page.getByText('No events').waitFor();
    await page.getByLabel('Delivery outcome').selectOption('delivered');
    await table.getByText('test.ping').first().waitFor();
    await context.close();
  });
});
