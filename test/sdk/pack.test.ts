/**
 * The SDK as an integrator gets it: `npm run sdk:build` + `npm pack`, the tarball installed into three fresh
 * projects in a temporary directory outside the repository (ESM, CommonJS, strict TypeScript compiled with tsc),
 * none of which can see the repository's sources. Each runs against the real service: it creates a webhook
 * endpoint served by its own HTTP server, a merchant and three orders, lists its orders with auto-pagination
 * (pages of 2), and verifies the real merchant.created delivery with the verifier from `@trisettle/sdk/webhooks`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cleanEnv, platformKey, ROOT, startService, type Service } from '../helpers/service-process.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 240_000 });
const run = promisify(execFile);

let service: Service;
let work: string;
let tarball: string;

const SCRIPT_BODY = (kind: string) => `
const { TRISETTLE_API: baseUrl, TRISETTLE_API_KEY: secretKey, MERCHANT_WALLET: wallet } = process.env;
const client = new Trisettle({ secretKey, baseUrl });
let secret = '';
let gotHook;
const hook = new Promise((resolve, reject) => {
  gotHook = resolve;
  setTimeout(() => reject(new Error('no webhook within 30 s')), 30_000).unref();
});
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    try {
      const event = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
      res.writeHead(200).end('ok');
      if (event.type === 'merchant.created') gotHook(event);
    } catch (err) {
      res.writeHead(400).end(String(err));
    }
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
const address = server.address();
const endpoint = await client.webhookEndpoints.create({ url: 'http://127.0.0.1:' + address.port + '/hook', subscribed_events: ['merchant.created'] });
secret = endpoint.secret;
const merchant = await client.merchants.create({ external_id: '${kind}-shop', name: '${kind} shop', merchant_wallet: wallet, chain_id: 84532 });
for (let i = 1; i <= 3; i++) {
  await client.orders.create({ merchant_id: merchant.external_id, order_no: '${kind}-' + i, chain_id: 84532, token: 'USDC', amount: '1.50' });
}
const seen = [];
for await (const order of client.orders.list({ limit: 2 })) seen.push(order.order_no);
const event = await hook;
server.close();
console.log(JSON.stringify({ kind: '${kind}', orders: seen, event: event.type, merchant: event.data.object.external_id }));
`;

/** The x402 entries load with neither hono nor express installed (they are types-only / structural). */
const X402_ESM = `import { createX402Paywall } from '@trisettle/sdk/x402';
import { x402Paywall as honoPaywall } from '@trisettle/sdk/x402/hono';
import { x402Paywall as expressPaywall } from '@trisettle/sdk/x402/express';
if (![createX402Paywall, honoPaywall, expressPaywall].every((f) => typeof f === 'function')) throw new Error('x402 entries');`;
const X402_CJS = `const { createX402Paywall } = require('@trisettle/sdk/x402');
const { x402Paywall: honoPaywall } = require('@trisettle/sdk/x402/hono');
const { x402Paywall: expressPaywall } = require('@trisettle/sdk/x402/express');
if (![createX402Paywall, honoPaywall, expressPaywall].every((f) => typeof f === 'function')) throw new Error('x402 entries');`;

const PROJECTS: Record<string, { files: Record<string, string>; deps: string[]; build?: string[]; main: string }> = {
  esm: {
    files: {
      'package.json': JSON.stringify({ name: 'consumer-esm', private: true, type: 'module' }),
      'index.js': `import http from 'node:http';\nimport { Trisettle } from '@trisettle/sdk';\nimport { verifyWebhook } from '@trisettle/sdk/webhooks';\n${X402_ESM}\n${SCRIPT_BODY('esm')}`,
    },
    deps: [],
    main: 'index.js',
  },
  cjs: {
    files: {
      'package.json': JSON.stringify({ name: 'consumer-cjs', private: true, type: 'commonjs' }),
      'index.js': `const http = require('node:http');\nconst { Trisettle } = require('@trisettle/sdk');\nconst { verifyWebhook } = require('@trisettle/sdk/webhooks');\n${X402_CJS}\n(async () => {\n${SCRIPT_BODY('cjs')}\n})().catch((err) => { console.error(err); process.exit(1); });`,
    },
    deps: [],
    main: 'index.js',
  },
  ts: {
    files: {
      'package.json': JSON.stringify({ name: 'consumer-ts', private: true, type: 'module' }),
      'tsconfig.json': JSON.stringify({
        compilerOptions: {
          target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true, skipLibCheck: false, types: ['node'], outDir: 'out', rootDir: 'src',
        },
        include: ['src'],
      }),
      'src/index.ts': `import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Trisettle, type Order, type WebhookEvent } from '@trisettle/sdk';
import { verifyWebhook, WebhookVerificationError } from '@trisettle/sdk/webhooks';
import { createX402Paywall, type X402Receipt } from '@trisettle/sdk/x402';
import { x402Paywall } from '@trisettle/sdk/x402/express';

const paywallTypes: [typeof createX402Paywall, typeof x402Paywall, X402Receipt | null] = [createX402Paywall, x402Paywall, null];
if (typeof paywallTypes[0] !== 'function') throw new Error('x402 entries');
const { TRISETTLE_API: baseUrl, TRISETTLE_API_KEY: secretKey, MERCHANT_WALLET: wallet } = process.env;
if (!baseUrl || !secretKey || !wallet) throw new Error('env');
const client = new Trisettle({ secretKey, baseUrl });
let secret = '';
let gotHook: (e: WebhookEvent) => void = () => {};
const hook = new Promise<WebhookEvent>((resolve, reject) => {
  gotHook = resolve;
  setTimeout(() => reject(new Error('no webhook within 30 s')), 30_000).unref();
});
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      const event = verifyWebhook(Buffer.concat(chunks), req.headers, secret);
      res.writeHead(200).end('ok');
      if (event.type === 'merchant.created') gotHook(event);
    } catch (err) {
      res.writeHead(err instanceof WebhookVerificationError ? 400 : 500).end(String(err));
    }
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
const { port } = server.address() as AddressInfo;
const endpoint = await client.webhookEndpoints.create({ url: \`http://127.0.0.1:\${port}/hook\`, subscribed_events: ['merchant.created'] });
secret = endpoint.secret ?? '';
const merchant = await client.merchants.create({ external_id: 'ts-shop', name: 'ts shop', merchant_wallet: wallet, chain_id: 84532 });
for (let i = 1; i <= 3; i++) {
  const order: Order = await client.orders.create({ merchant_id: merchant.external_id, order_no: \`ts-\${i}\`, chain_id: 84532, token: 'USDC', amount: '1.50' });
  if (order.state !== 'pending_payment') throw new Error(order.state);
}
const seen: string[] = [];
for await (const order of client.orders.list({ limit: 2 })) seen.push(order.order_no);
const event = await hook;
server.close();
if (event.type !== 'merchant.created') throw new Error(event.type);
console.log(JSON.stringify({ kind: 'ts', orders: seen, event: event.type, merchant: event.data.object.external_id }));
`,
    },
    deps: ['typescript@5.9.3', '@types/node@20.19.43'],
    build: ['node_modules/typescript/bin/tsc', '-p', '.'],
    main: 'out/index.js',
  },
};

beforeAll(async () => {
  const servicePromise = startService('sdk-pack');
  work = mkdtempSync(path.join(tmpdir(), 'trisettle-sdk-pack-'));
  await run(process.execPath, ['--import', 'tsx', 'sdk/scripts/build.ts'], { cwd: ROOT });
  const packed = await run('npm', ['pack', path.join(ROOT, 'sdk/dist'), '--pack-destination', work, '--silent'], { cwd: work });
  tarball = path.join(work, packed.stdout.trim().split('\n').pop()!);
  for (const [kind, p] of Object.entries(PROJECTS)) {
    const dir = path.join(work, kind);
    for (const [file, text] of Object.entries(p.files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    await run('npm', ['install', tarball, ...p.deps, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, env: cleanEnv({}) });
    if (p.build) await run(process.execPath, p.build, { cwd: dir });
  }
  service = await servicePromise;
});
afterAll(async () => {
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the service it runs against', () => {
  it('printed the start-up banner once healthy, and no warning on this clean start', async () => {
    const until = Date.now() + 15_000;
    let log = readFileSync(service.logFile, 'utf8');
    while (!log.includes('Trisettle is running') && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      log = readFileSync(service.logFile, 'utf8');
    }
    expect(log).toContain('Trisettle is running (devnet)');
    expect(log).toContain(`${service.baseUrl}/dashboard`);
    expect(log).toContain(service.devnet.rpc_url);
    expect(log).toContain(service.devnet.accounts[0]!.address);
    // The service logs at warn here (LOG_LEVEL=warn): any JSON line at all is a warning or worse.
    expect(log.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
  });
});

describe('the packed SDK in fresh projects', () => {
  it('installs with no dependency of its own and ships ESM, CommonJS and declarations', () => {
    const installed = path.join(work, 'esm', 'node_modules');
    expect(readdirSync(installed).filter((d) => !d.startsWith('.'))).toEqual(['@trisettle']);
    const pkg = path.join(installed, '@trisettle', 'sdk');
    expect(readdirSync(pkg).sort()).toEqual(['README.md', 'cjs', 'esm', 'openapi.json', 'package.json']);
    expect(readdirSync(path.join(pkg, 'esm'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'webhooks.js', 'webhooks.d.ts']));
    expect(readdirSync(path.join(pkg, 'cjs'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'webhooks.js', 'webhooks.d.ts']));
    for (const build of ['esm', 'cjs']) {
      expect(readdirSync(path.join(pkg, build, 'x402'))).toEqual(expect.arrayContaining(['index.js', 'hono.js', 'hono.d.ts', 'express.js', 'express.d.ts']));
    }
    expect(work.startsWith(ROOT)).toBe(false);
  });

  for (const kind of Object.keys(PROJECTS)) {
    it(`${kind}: creates orders, lists them across pages, verifies a real webhook delivery`, async () => {
      const key = await platformKey(service.baseUrl, privateKeyToAccount(generatePrivateKey()).address);
      const wallet = privateKeyToAccount(generatePrivateKey()).address;
      const dir = path.join(work, kind);
      const out = await run(process.execPath, [PROJECTS[kind]!.main], {
        cwd: dir, env: cleanEnv({ TRISETTLE_API: service.baseUrl, TRISETTLE_API_KEY: key, MERCHANT_WALLET: wallet }), timeout: 90_000,
      });
      const result = JSON.parse(out.stdout.trim().split('\n').pop()!);
      expect(result).toEqual({ kind, orders: [`${kind}-3`, `${kind}-2`, `${kind}-1`], event: 'merchant.created', merchant: `${kind}-shop` });
    });
  }
});
