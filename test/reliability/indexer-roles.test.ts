import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payAsBuyer } from '../helpers/flow.js';
import { startRpcProxy, type RpcProxy } from './helpers/rpc-proxy.js';
import { client, freePort, startService, type ServiceProcess } from './helpers/service.js';
import { ADMIN, onboardOverHttp, startStack, type Stack } from './helpers/stack.js';

/**
 * The indexer across roles: the real service as two processes on one PostgreSQL database, `--role api`
 * and `--role worker`. The API process shows what the worker's indexer does (cursor, lease, errors) and
 * its /_/indexer/stop|start take effect in the worker. The RPC URL carries a provider-style key in its
 * path, behind a proxy that fails requests: neither the key nor the URL shows anywhere.
 */
const SECRET = 'SECRETKEY0123456789';
let stack: Stack;
let proxy: RpcProxy;
let api: ServiceProcess;
let worker: ServiceProcess;
let P: Awaited<ReturnType<typeof onboardOverHttp>>;
const admin = { authorization: `Bearer ${ADMIN}` };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  stack = await startStack({ buyers: 2, rpcUrl: () => `${proxy.url}/v2/${SECRET}` });
  proxy = await startRpcProxy(stack.chain.rpcUrl);
  const [apiPort, workerPort] = [await freePort(), await freePort()];
  api = await startService({ env: stack.env(apiPort), port: apiPort, role: 'api' });
  const holds = async (pid: number) => (await stack.db.query(`select 1 from indexer_chains where lease_holder like $1 and lease_until > now()`, [`%:${pid}:%`])).rowCount === 1;
  worker = await startService({ env: stack.env(workerPort), port: workerPort, role: 'worker', ready: holds });
  P = await onboardOverHttp(api.url);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await api?.stop();
  await proxy?.close();
  await stack?.close();
});

const req = (method: string, path: string, o: Parameters<ReturnType<typeof client>>[2] = {}) => client(api.url)(method, path, o);
const status = async () => (await req('GET', '/_/indexer/status', { headers: admin })).body;
const state = async (id: string) => (await req('GET', `/v1/orders/${id}`, { key: P.key })).body.state as string;

async function paidOrder() {
  const o = await req('POST', '/v1/orders', { key: P.key, body: { merchant_id: P.merchant.external_id, order_no: `roles-${randomBytes(4).toString('hex')}`, chain_id: 84532, token: 'USDC', amount: '6.00' } });
  expect(o.status, o.text).toBe(201);
  await payAsBuyer(stack.chain, stack.chain.buyers[0]!, o.body);
  await stack.chain.mine(2);
  return o.body.id as string;
}

async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end) {
      throw new Error(`${what}: ${JSON.stringify(v)}\n${worker.logs.slice(-10).join('\n')}`);
    }
    await sleep(200);
  }
}

describe('indexer status and control from the API role', () => {
  it('shows the worker\'s cursor, lease and heartbeat', async () => {
    const id = await paidOrder();
    await until('confirmed', () => state(id), (s) => s === 'confirmed');
    const s = await status();
    expect(s.running).toBe(true);
    const c = s.chains[0];
    expect(c).toMatchObject({ chain_id: 84532, running: true, enabled: true, finality: 'latest', finality_source: 'depth', last_error: null });
    expect(c.lease_holder).toContain(`:${worker.pid}:`);
    expect(Date.now() - Date.parse(c.heartbeat_at)).toBeLessThan(10_000);
    expect(BigInt(c.cursor)).toBeGreaterThan(0n);
    expect(c.logs_applied).toBeGreaterThanOrEqual(1);
    expect(c.cursor_block_time).not.toBeNull();
  }, 60_000);

  it('stop through the API stops the worker\'s indexing; start resumes it', async () => {
    const stopped = await req('POST', '/_/indexer/stop', { headers: admin });
    expect(stopped.status).toBe(200);
    expect(stopped.body.chains[0]).toMatchObject({ running: false, enabled: false });
    const cursor = (await status()).chains[0].cursor;
    const id = await paidOrder();
    await sleep(5_000); // two and a half of the worker's wake-ups (2 s): nothing may move
    expect(await state(id)).toBe('pending_payment');
    expect((await status()).chains[0]).toMatchObject({ cursor, running: false });

    const started = await req('POST', '/_/indexer/start', { headers: admin });
    expect(started.body.chains[0].enabled).toBe(true);
    await until('confirmed after start', () => state(id), (s) => s === 'confirmed');
    const c = (await status()).chains[0];
    expect(c.running).toBe(true);
    expect(c.lease_holder).toContain(`:${worker.pid}:`);
    expect(BigInt(c.cursor)).toBeGreaterThan(BigInt(cursor));
  }, 60_000);
});

describe('a worker killed mid-lease', () => {
  it('its replacement on the same host takes the lease over without waiting for it to run out, and indexes', async () => {
    const port = worker.port;
    await worker.kill();
    const before = (await status()).chains[0];
    expect(before.lease_holder).toContain(`:${worker.pid}:`);
    expect(Date.parse(before.lease_until)).toBeGreaterThan(Date.now() + 5_000); // still live for a while
    worker = await startService({ env: stack.env(port), port, role: 'worker', ready: async (pid) => (await stack.db.query(`select 1 from indexer_chains where lease_holder like $1`, [`%:${pid}:%`])).rowCount === 1 });
    expect(Date.now(), 'taken over before the dead holder\'s lease ran out').toBeLessThan(Date.parse(before.lease_until));
    const id = await paidOrder();
    await until('confirmed by the new worker', () => state(id), (s) => s === 'confirmed');
    expect((await status()).chains[0].lease_holder).toContain(`:${worker.pid}:`);
  }, 90_000);
});

describe('the RPC URL and its key never show', () => {
  it('not in the status, the alerts, the logs of either process or the metrics', async () => {
    // Every call fails (a flaky RPC is hidden by viem's own retries): the indexer's ticks fail and say why.
    proxy.set({ kind: 'http500' });
    const failing = await until('an error in the status', status, (s) => s.chains[0].last_error !== null);
    proxy.set({ kind: 'rpcError', message: 'header not found' });
    const during = await until('the next error', status, (s) => /header not found/.test(s.chains[0].last_error ?? ''));
    proxy.set({ kind: 'none' });
    const id = await paidOrder();
    await until('confirmed after the faults', () => state(id), (s) => s === 'confirmed');

    const host = new URL(proxy.url).host;
    const metrics = await req('GET', '/metrics', { headers: admin });
    expect(metrics.status).toBe(200);
    const alerts = (await stack.db.query('select detail::text as d from chain_alerts')).rows.map((r) => r.d).join('\n');
    const errors = (await stack.db.query('select last_error from indexer_chains')).rows.map((r) => r.last_error ?? '').join('\n');
    const texts = { status: JSON.stringify([failing, during]), alerts, errors, worker: worker.logs.join('\n'), api: api.logs.join('\n'), metrics: metrics.text };
    expect(worker.logs.some((l) => l.includes('indexer tick failed')), 'the worker logged the failures').toBe(true);
    for (const [where, text] of Object.entries(texts)) {
      expect(text.includes(SECRET), `${where} holds the key`).toBe(false);
      expect(text.includes(host), `${where} holds the RPC host`).toBe(false);
      expect(text.includes('/v2/'), `${where} holds the RPC path`).toBe(false);
    }
  }, 90_000);
});
