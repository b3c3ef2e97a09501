/**
 * `trisettle trigger` for the types the devnet has no flow for: the CLI (sdk/src/cli/main.ts, run as a process) sends
 * a test event through POST /v1/events/test to a service served over HTTP (the in-process app on a port), and the
 * event is then listed by GET /v1/events. Its usage lists every type the service sends (TEST_EVENT_TYPES). Where the
 * API's URL comes from: TRISETTLE_API, else the api_url of TRISETTLE_DEVNET_JSON's file, else an error naming them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_EVENT_TYPES } from '../../src/modules/webhooks/test-objects.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { cleanEnv, ROOT } from '../helpers/service-process.js';

const execFileP = promisify(execFile);
let h: Harness;
let a: Awaited<ReturnType<Harness['platform']>>;
let server: ServerType;
let base: string;
let dir: string;

/** The CLI as a process, with only the TRISETTLE_ variables given (cleanEnv inherits none). */
async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileP(process.execPath, ['--import', 'tsx', 'sdk/src/cli/main.ts', ...args], { cwd: ROOT, env: cleanEnv(env), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const listed = async (type: string) =>
  ((await h.request('GET', `/v1/events?type=${type}`, { key: a.secretKey })).body.data as { id: string; type: string; data: { object: { test?: boolean } } }[])
    .filter((e) => e.type === type);

beforeAll(async () => {
  h = await createHarness();
  a = await h.platform();
  server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(path.join(tmpdir(), 'trisettle-trigger-'));
}, 60_000);
afterAll(async () => {
  server?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('trisettle trigger, for a type without a devnet flow', () => {
  it('sends subscription.past_due as a test event: listed by GET /v1/events with a sample object marked test', async () => {
    expect(await listed('subscription.past_due')).toEqual([]);
    const r = await cli(['trigger', 'subscription.past_due'], { TRISETTLE_API: base, TRISETTLE_API_KEY: a.secretKey });
    expect(r.code, r.stderr).toBe(0);
    const id = /subscription\.past_due: test event (evt_\w+)/.exec(r.stdout)?.[1];
    expect(id, r.stdout).toBeDefined();
    const events = await listed('subscription.past_due');
    expect(events.map((e) => e.id)).toEqual([id]);
    expect(events[0]!.data.object.test).toBe(true);
  }, 60_000);

  it('finds the API in the devnet.json named by TRISETTLE_DEVNET_JSON (api_url) when TRISETTLE_API is not set', async () => {
    const file = path.join(dir, 'devnet.json');
    writeFileSync(file, JSON.stringify({ chain_id: 84532, rpc_url: 'http://127.0.0.1:9', api_url: base }));
    const r = await cli(['trigger', 'settlement.completed'], { TRISETTLE_DEVNET_JSON: file, TRISETTLE_API_KEY: a.secretKey });
    expect(r.code, r.stderr).toBe(0);
    expect((await listed('settlement.completed')).map((e) => e.id)).toEqual([/test event (evt_\w+)/.exec(r.stdout)![1]]);
  }, 60_000);

  it('without TRISETTLE_API nor an api_url, fails naming the variable to set (no port guessed)', async () => {
    const old = path.join(dir, 'old-devnet.json');
    writeFileSync(old, JSON.stringify({ chain_id: 84532, rpc_url: 'http://127.0.0.1:9' })); // written before api_url
    for (const env of [{}, { TRISETTLE_DEVNET_JSON: old }] as Record<string, string>[]) {
      const r = await cli(['trigger', 'order.failed'], { ...env, TRISETTLE_API_KEY: a.secretKey });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/set TRISETTLE_API\b/);
    }
    expect(await listed('order.failed')).toEqual([]);
  }, 60_000);

  it('refuses a type the service does not send, naming the types', async () => {
    const r = await cli(['trigger', 'order.shipped'], { TRISETTLE_API: base, TRISETTLE_API_KEY: a.secretKey });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/cannot trigger "order\.shipped".*subscription\.created/);
  }, 60_000);
});

describe('trisettle trigger --help', () => {
  it('lists every type the service sends (TEST_EVENT_TYPES), with no key needed; so does trigger with no event', async () => {
    for (const args of [['trigger', '--help'], ['trigger']]) {
      const r = await cli(args, {});
      expect(r.code, r.stderr).toBe(0);
      const listedTypes = new Set([...r.stdout.matchAll(/^\s+([a-z_]+(?:\.[a-z_]+)+)\b/gm)].map((m) => m[1]));
      expect([...TEST_EVENT_TYPES].filter((t) => !listedTypes.has(t))).toEqual([]);
    }
  }, 60_000);
});
