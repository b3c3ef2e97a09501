/**
 * The `trisettle` command as a user runs it: the SDK built and packed (sdk/scripts/build.ts into a directory of
 * this file's own + `npm pack`), installed into a fresh project outside the repository, and run with
 * `npx @trisettle/sdk …` against the real service on its devnet (TRISETTLE_API_KEY, TRISETTLE_API).
 *
 * Before the session: the CLI's merchant is created through the API (a merchant.created that already exists when
 * `listen` starts). Then two listeners, one forwarding everything and one `--events order.confirmed`, and four
 * triggers at once: merchant.created, order.confirmed, refund.completed and checkout.session.completed, the three
 * payments from three dev accounts; each creates its objects, pays and waits for its state. The receivers check every delivery against the secret each listener printed, with the
 * `standardwebhooks` package (Standard Webhooks headers) and the SDK's verifyWebhook (X-Webhook-Signature).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyWebhook } from '@trisettle/sdk';
import { cleanEnv, platformKey, ROOT, startService, type Service } from '../helpers/service-process.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 });
const run = promisify(execFile);

type Received = { body: string; headers: Record<string, string> };
type Listener = { child: ChildProcess; secret: string; output: () => string; received: Received[]; server: Server; url: string };

let service: Service;
let work: string;
let env: NodeJS.ProcessEnv;
const listeners: Listener[] = [];
/** The listener forwarding everything, and the one with `--events order.confirmed`. */
let all: Listener;
let filtered: Listener;

/** A local webhook receiver that records each POST (raw body and headers) and answers 200. */
async function receiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers as Record<string, string> });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks` };
}

const npx = (args: string[]) => ['npx', ['--no', '@trisettle/sdk', ...args]] as const;

/** Starts `listen` and resolves once it has printed its secret (it has read the existing events by then). */
async function listen(extra: string[]): Promise<Listener> {
  const r = await receiver();
  const [cmd, args] = npx(['listen', '--forward-to', r.url, ...extra]);
  const child = spawn(cmd, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const secret = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const m = /secret for this session: (whsec_[A-Za-z0-9]+)/.exec(output);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`listen exited (${code}):\n${output}`)));
  });
  const l = { child, secret, output: () => output, ...r };
  listeners.push(l);
  return l;
}

const types = (l: Listener) => l.received.map((r) => (JSON.parse(r.body) as { type: string }).type);

async function until(what: string, ok: () => boolean, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s\n${listeners.map((l) => l.output()).join('\n---\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let preexisting: string;
let orderId: string;
let refundOut: string;
let merchantOut: string;
let sessionOut: string;

beforeAll(async () => {
  const servicePromise = startService('sdk-cli');
  work = mkdtempSync(path.join(tmpdir(), 'trisettle-cli-'));
  const dist = path.join(work, 'dist');
  await run(process.execPath, ['--import', 'tsx', 'sdk/scripts/build.ts', '--out-dir', dist], { cwd: ROOT });
  const packed = await run('npm', ['pack', dist, '--pack-destination', work, '--silent'], { cwd: work });
  const tarball = path.join(work, packed.stdout.trim().split('\n').pop()!);
  writeFileSync(path.join(work, 'package.json'), JSON.stringify({ name: 'cli-user', private: true, type: 'module' }));
  await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: work, env: cleanEnv({}) });
  service = await servicePromise;
  const key = await platformKey(service.baseUrl, service.devnet.accounts[3]!.address);
  env = cleanEnv({ TRISETTLE_API_KEY: key, TRISETTLE_API: service.baseUrl, TRISETTLE_RPC_URL: service.devnet.rpc_url });

  const created = await fetch(`${service.baseUrl}/v1/onboarding/merchants`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ external_id: 'trisettle-cli', name: 'CLI', chain_id: 84532, merchant_wallet: service.devnet.accounts[1]!.address }),
  });
  preexisting = ((await created.json()) as { id: string }).id;
  [all, filtered] = await Promise.all([listen([]), listen(['--events', 'order.confirmed'])]);
  const trigger = async (args: string[]) => (await run(npx(args)[0], [...npx(args)[1]], { cwd: work, env })).stdout;
  const payer = (i: number) => ['--payer', service.devnet.accounts[i]!.address];
  let orderOut: string;
  [merchantOut, orderOut, refundOut, sessionOut] = await Promise.all([
    trigger(['trigger', 'merchant.created']),
    trigger(['trigger', 'order.confirmed']),
    trigger(['trigger', 'refund.completed', ...payer(4)]),
    trigger(['trigger', 'checkout.session.completed', ...payer(5)]),
  ]);
  orderId = /order (ord_\w+) confirmed/.exec(orderOut)![1]!;
  await until('the listeners forward every event', () => types(all).length >= 6 && types(filtered).length >= 3, 60_000);
});

afterAll(async () => {
  for (const l of listeners) {
    l.child.kill('SIGTERM');
    l.server.close();
  }
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npx @trisettle/sdk listen / trigger (the packed SDK in a fresh project, the service on its devnet)', () => {
  it('trigger order.confirmed paid the order on chain: the service has it confirmed', async () => {
    const res = await fetch(`${service.baseUrl}/v1/orders/${orderId}`, { headers: { authorization: `Bearer ${env.TRISETTLE_API_KEY}` } });
    expect(await res.json()).toMatchObject({ id: orderId, state: 'confirmed', amount: '10.00' });
  });

  it('trigger refund.completed and checkout.session.completed pay on chain and wait for their state', () => {
    expect(refundOut).toMatch(new RegExp(`paid ord_\\w+ \\(10\\.00 USDC\\) from ${service.devnet.accounts[4]!.address}`, 'i'));
    expect(refundOut).toMatch(/refund\.completed: refund re_\w+ of order ord_\w+ completed/);
    expect(sessionOut).toMatch(new RegExp(`paid ord_\\w+ \\(10\\.00 USDC\\) from ${service.devnet.accounts[5]!.address}`, 'i'));
    expect(sessionOut).toMatch(/checkout\.session\.completed: session cs_\w+ completed/);
  });

  it('forwards the events emitted during the session, oldest first, and none from before it', () => {
    expect([...types(all)].sort()).toEqual(['checkout.session.completed', 'merchant.created', 'order.confirmed', 'order.confirmed', 'order.confirmed', 'refund.completed']);
    const at = all.received.map((r) => Date.parse((JSON.parse(r.body) as { created_at: string }).created_at));
    expect(at).toEqual([...at].sort((a, b) => a - b));
    const merchant = all.received.map((r) => JSON.parse(r.body) as { type: string; data: { object: { id: string } } }).find((e) => e.type === 'merchant.created')!;
    expect(merchant.data.object.id).toBe(/merchant (mch_\w+)/.exec(merchantOut)![1]);
    expect(merchant.data.object.id).not.toBe(preexisting);
  });

  it('--events forwards only the matching types', () => {
    expect(types(filtered)).toEqual(['order.confirmed', 'order.confirmed', 'order.confirmed']);
  });

  it('signs each delivery with the printed per-session secret, verifiable by standardwebhooks and the SDK', () => {
    expect(all.secret).not.toBe(filtered.secret);
    for (const l of [all, filtered]) {
      const confirmed: string[] = [];
      for (const r of l.received) {
        const event = new Webhook(l.secret).verify(r.body, r.headers) as { id: string; type: string; data: { object: { id: string } } };
        expect(r.headers['webhook-id']).toBe(event.id);
        expect(verifyWebhook(r.body, r.headers, l.secret).id).toBe(event.id);
        if (event.type === 'order.confirmed') confirmed.push(event.data.object.id);
      }
      expect(confirmed).toContain(orderId);
      // Another session's secret does not verify: each listener signs with its own.
      const other = l === all ? filtered : all;
      expect(() => new Webhook(other.secret).verify(l.received[0]!.body, l.received[0]!.headers)).toThrow();
    }
  });

  it('forwards the body the service delivers and logs one line per delivery (time, type, id, local status, ms)', () => {
    const r = filtered.received[0]!;
    expect(Object.keys(JSON.parse(r.body) as object)).toEqual(['id', 'type', 'created_at', 'data']);
    const id = (JSON.parse(r.body) as { id: string }).id;
    expect(filtered.output()).toMatch(new RegExp(`\\d\\d:\\d\\d:\\d\\d  order\\.confirmed +${id}  → 200  \\d+ ms`));
  });
});
