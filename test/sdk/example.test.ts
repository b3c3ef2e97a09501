/**
 * examples/platform-integration in script mode, as a separate process against the real service on the
 * devnet: it creates a platform, a merchant, a webhook endpoint and a checkout session with the SDK,
 * pays the session on chain as a devnet buyer (approve + payOrder from the public session read), and
 * exits 0 once its own receiver has verified the order.confirmed webhook for that order.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Trisettle } from '@trisettle/sdk';
import { cleanEnv, ROOT, startService, type Service } from '../helpers/service-process.js';

vi.setConfig({ testTimeout: 120_000, hookTimeout: 150_000 });

let service: Service;
beforeAll(async () => {
  service = await startService('example');
});
afterAll(() => service?.stop());

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { err += c.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

describe('examples/platform-integration', () => {
  it('goes from nothing to a verified order.confirmed on the devnet', async () => {
    const r = await run(['examples/platform-integration/main.ts', '--script'], {
      // No TRISETTLE_API: the API's URL is the api_url the service wrote into devnet.json.
      TRISETTLE_DEVNET_JSON: service.devnetFile, WEBHOOK_PORT: '0', CONFIRM_TIMEOUT_MS: '60000',
    });
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    expect(service.devnet.api_url).toBe(service.baseUrl);
    const line = r.out.split('\n').find((l) => l.startsWith('RESULT '));
    const result = JSON.parse(line!.slice('RESULT '.length));
    expect(result).toMatchObject({ event_type: 'order.confirmed', order_state: 'confirmed', tx_hash: result.pay_tx });
    expect(r.out).toMatch(/webhook verified: order\.confirmed evt_/);
    expect(r.out).not.toMatch(/webhook refused/);

    // What the platform saw matches the service's own record.
    const secretKey = /secret key \(shown once\): (sk_live_\S+)/.exec(r.out)![1]!;
    const client = new Trisettle({ secretKey, baseUrl: service.baseUrl });
    const order = await client.orders.retrieve(result.order_id);
    expect(order).toMatchObject({ state: 'confirmed', paid_by: service.devnet.accounts[0]!.address, checkout_session_id: result.session_id });
    expect((await client.events.retrieve(result.event_id)).type).toBe('order.confirmed');
  });
});
