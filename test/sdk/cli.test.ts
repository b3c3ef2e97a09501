/**
 * The `trisettle` command as a user runs it: the SDK built and packed (sdk/scripts/build.ts into a directory of
 * this file's own + `npm pack`), installed into a fresh project outside the repository, and run with
 * `npx @trisettle/sdk …` against the real service on its devnet (TRISETTLE_API_KEY, TRISETTLE_API).
 *
 * Before the session: `trigger merchant.created` (an event that already exists when `listen` starts). Then two
 * listeners, one forwarding everything and one `--events order.confirmed`, and `trigger order.confirmed`, which
 * creates the CLI's merchant (merchant.created) and an order, pays it from a dev account, and waits for it to
 * be confirmed. The receivers check every delivery against the secret each listener printed, with the
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

  const [cmd, args] = npx(['trigger', 'merchant.created']);
  preexisting = /merchant (mch_\w+)/.exec((await run(cmd, [...args], { cwd: work, env })).stdout)![1]!;
  await Promise.all([listen([]), listen(['--events', 'order.confirmed'])]);
  const [tcmd, targs] = npx(['trigger', 'order.confirmed']);
  const out = (await run(tcmd, [...targs], { cwd: work, env })).stdout;
  orderId = /order (ord_\w+) confirmed/.exec(out)![1]!;
  await until('both listeners forward order.confirmed', () => listeners.every((l) => types(l).includes('order.confirmed')));
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

  it('forwards the events emitted during the session, oldest first, and none from before it', () => {
    const all = listeners[0]!;
    expect(types(all)).toEqual(['merchant.created', 'order.confirmed']);
    const merchant = JSON.parse(all.received[0]!.body) as { data: { object: { id: string; external_id: string } } };
    expect(merchant.data.object.external_id).toBe('trisettle-cli');
    expect(merchant.data.object.id).not.toBe(preexisting);
  });

  it('--events forwards only the matching types', () => {
    expect(types(listeners[1]!)).toEqual(['order.confirmed']);
  });

  it('signs each delivery with the printed per-session secret, verifiable by standardwebhooks and the SDK', () => {
    const [a, b] = listeners as [Listener, Listener];
    expect(a.secret).not.toBe(b.secret);
    for (const l of listeners) {
      for (const r of l.received) {
        const event = new Webhook(l.secret).verify(r.body, r.headers) as { id: string; type: string; data: { object: { id: string } } };
        expect(r.headers['webhook-id']).toBe(event.id);
        expect(verifyWebhook(r.body, r.headers, l.secret).id).toBe(event.id);
        if (event.type === 'order.confirmed') expect(event.data.object.id).toBe(orderId);
      }
      // Another session's secret does not verify: each listener signs with its own.
      const other = l === a ? b : a;
      expect(() => new Webhook(other.secret).verify(l.received[0]!.body, l.received[0]!.headers)).toThrow();
    }
  });

  it('forwards the body the service delivers and logs one line per delivery (time, type, id, local status, ms)', () => {
    const r = listeners[1]!.received[0]!;
    expect(Object.keys(JSON.parse(r.body) as object)).toEqual(['id', 'type', 'created_at', 'data']);
    const id = (JSON.parse(r.body) as { id: string }).id;
    expect(listeners[1]!.output()).toMatch(new RegExp(`\\d\\d:\\d\\d:\\d\\d  order\\.confirmed +${id}  → 200  \\d+ ms`));
  });
});
