/**
 * Issue 15, item 9: a provider RPC URL carries its API key in the path or the query. The real service, in
 * production mode, runs behind an RPC that fails in every way the proxy can (HTTP 500, 429, JSON-RPC errors,
 * refused connections) while it indexes, refunds and settles. No part of the URL — the key, the query
 * secret, the host and port, the URL itself — may reach its logs, /_/indexer/status, /metrics or any row
 * of its database.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payAsBuyer } from '../helpers/flow.js';
import { startRpcProxy, type FaultMode, type RpcProxy } from './helpers/rpc-proxy.js';
import { client, freePort, startService, type ServiceProcess } from './helpers/service.js';
import { ADMIN, expectStatus, onboardOverHttp, startStack, type Stack } from './helpers/stack.js';

const PATH_KEY = 'k3yInThePath0123456789abcdefXYZ';
const QUERY_KEY = 'qu3ryS3cretValue987654321';
let stack: Stack;
let proxy: RpcProxy;
let svc: ServiceProcess;
let rpcUrl: string;

beforeAll(async () => {
  stack = await startStack({ buyers: 2 });
  proxy = await startRpcProxy(stack.chain.rpcUrl);
  rpcUrl = `${proxy.url}/v2/${PATH_KEY}?apikey=${QUERY_KEY}`;
  const port = await freePort();
  svc = await startService({ port, env: stack.env(port, { RPC_URL_84532: rpcUrl, LOG_LEVEL: 'debug' }) });
}, 120_000);
afterAll(async () => {
  await svc?.stop();
  await proxy?.close();
  await stack?.close();
});

const admin = { authorization: `Bearer ${ADMIN}` };

/** Every piece of the RPC URL that would give it away. */
const leaks = (text: string) => [rpcUrl, PATH_KEY, QUERY_KEY, new URL(proxy.url).host].filter((s) => text.includes(s));

async function allDatabaseText(): Promise<string> {
  const c = new pg.Client({ connectionString: stack.db.url });
  await c.connect();
  try {
    const tables = (await c.query(`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`)).rows;
    let out = '';
    for (const { table_name } of tables) out += JSON.stringify((await c.query(`select * from "${table_name}"`)).rows);
    return out;
  } finally {
    await c.end();
  }
}

describe('RPC URL secrets', () => {
  it('never reach logs, status, metrics or the database, whatever the RPC fails with', async () => {
    const req = client(svc.url);
    const o = await onboardOverHttp(svc.url);
    const order = expectStatus(await req('POST', '/v1/orders', { key: o.key, body: { merchant_id: o.merchant.external_id, order_no: 'secret-1', chain_id: 84532, token: 'USDC', amount: '4.00' } }), 201).body;
    await payAsBuyer(stack.chain, stack.chain.buyers[0]!, order);
    for (let i = 0; ; i++) {
      if ((await req('GET', `/v1/orders/${order.id}`, { key: o.key })).body.state === 'confirmed') break;
      if (i > 200) throw new Error('payment not confirmed');
      await new Promise((r) => setTimeout(r, 150));
    }
    // A refund for the workers to send while the RPC misbehaves.
    expectStatus(await req('POST', '/v1/refunds', { key: o.key, body: { order_id: order.id, amount: '0.10' } }), 201);

    const modes: FaultMode[] = [{ kind: 'http500' }, { kind: 'http429' }, { kind: 'rpcError', message: `upstream ${rpcUrl} failed` }, { kind: 'down' }];
    for (const mode of modes) {
      proxy.set(mode);
      const seen = svc.logs.length;
      // Until the service has noticed: its status shows an error and it has logged since the fault began.
      for (let i = 0; ; i++) {
        const s = (await req('GET', '/_/indexer/status', { headers: admin })).body;
        if (s.chains[0].last_error && svc.logs.length > seen) break;
        if (i > 150) throw new Error(`fault ${mode.kind} never showed: ${JSON.stringify(s)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const status = await req('GET', '/_/indexer/status', { headers: admin });
      expect(leaks(status.text), `status during ${mode.kind}: ${status.text}`).toEqual([]);
    }
    proxy.set({ kind: 'none' });

    const metrics = await req('GET', '/metrics', { headers: admin });
    expect(metrics.status).toBe(200);
    expect(leaks(metrics.text)).toEqual([]);
    const logs = svc.logs.join('\n');
    expect(logs).toMatch(/"level":(40|50)/); // the faults were logged…
    expect(leaks(logs), logs.split('\n').filter((l) => leaks(l).length).slice(0, 3).join('\n')).toEqual([]); // …without the URL
    expect(leaks(await allDatabaseText())).toEqual([]);
  });
});
