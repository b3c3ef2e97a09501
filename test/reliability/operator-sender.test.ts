import { parseAbiItem, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { payAsBuyer } from '../helpers/flow.js';
import { client, freePort, startService, type ServiceProcess } from './helpers/service.js';
import { expectStatus, onboardOverHttp, startStack, type Stack } from './helpers/stack.js';

/**
 * Issue 15 item 7 with real processes: one API (`--role api`) and worker instances (`--role worker`)
 * sharing one PostgreSQL and one operator key on anvil. The operator sender runs only in the instance that
 * holds the database lease. It is SIGKILLed right after recording a signed transaction (before
 * broadcasting it: the test-only OPERATOR_TX_FAULT hook), and later while its transactions wait in a
 * paused mempool; the next holder continues from the records. Every refund and the settlement batch is
 * executed exactly once on chain, the operator's nonces are contiguous, and no intent is lost.
 */
let stack: Stack;
let api: ServiceProcess;
const workers: ServiceProcess[] = [];
let P: Awaited<ReturnType<typeof onboardOverHttp>>;
const req = (method: string, path: string, o: Parameters<ReturnType<typeof client>>[2] = {}) => client(api.url)(method, path, { key: P.key, ...o });

beforeAll(async () => {
  stack = await startStack({ buyers: 1 });
  const port = await freePort();
  api = await startService({ env: stack.env(port), port, role: 'api' });
  P = await onboardOverHttp(api.url);
}, 120_000);
afterAll(async () => {
  for (const w of workers) await w.kill();
  await api?.stop();
  await stack?.close();
});

const q = async <T = any>(sql: string, values?: unknown[]) => (await stack.db.query(sql, values)).rows as T[];
async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${workers.map((w) => w.logs.slice(-15).join('\n')).join('\n---\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function startWorker(extra: Record<string, string> = {}, waitForLease = false) {
  const port = await freePort();
  const w = await startService({
    env: stack.env(port, { OPERATOR_LEASE_SECONDS: '3', LOG_LEVEL: 'info', ...extra }), port, role: 'worker',
    ready: async () => !waitForLease || (await operatorLease())?.live === true,
  });
  workers.push(w);
  return w;
}
// The stack also configures a relayer key, whose sender has its own lease row: these read the operator's.
const operatorLease = async () => (await q(`select holder, sender, expires_at > now() as live from operator_leases where lower(sender) = lower($1)`, [privateKeyToAccount(stack.env(0).OPERATOR_PRIVATE_KEY as Hex).address]))[0];
const leaseHolderPid = async () => Number(((await operatorLease())?.holder ?? '::').split(':')[1]);

async function paidOrders(n: number) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const o = expectStatus(await req('POST', '/v1/orders', { body: { merchant_id: P.merchant.external_id, order_no: `os-${i}-${Date.now()}`, chain_id: 84532, token: 'USDC', amount: '50.00' } }), 201).body;
    await payAsBuyer(stack.chain, stack.chain.buyers[0]!, o);
    ids.push(o.id);
  }
  return ids;
}
async function setHold(seconds: bigint) {
  const owner = stack.chain.walletClientFor(stack.chain.owner);
  await stack.chain.confirm(await owner.writeContract({ address: stack.chain.router, abi: paymentRouterAbi, functionName: 'setReserveHold', args: [seconds] }));
}
const refund = async (orderId: string) => expectStatus(await req('POST', '/v1/refunds', { body: { order_id: orderId, amount: '1.00' } }), 201).body.id as string;

const refundedEvent = parseAbiItem('event Refunded(bytes32 indexed orderId, bytes32 indexed refundId, address to, uint256 amount, uint256 fromReserve, uint256 fromSubmitter)');
const settledEvent = parseAbiItem('event BatchSettled(bytes32 indexed batchId, uint256 orderCount, uint256 totalReleased)');

async function onChainCounts() {
  const c = stack.chain;
  const refunded = await c.publicClient.getLogs({ address: c.router, event: refundedEvent, fromBlock: stack.startBlock, toBlock: 'latest' });
  const settled = await c.publicClient.getLogs({ address: c.router, event: settledEvent, fromBlock: stack.startBlock, toBlock: 'latest' });
  const per = new Map<string, number>();
  for (const l of refunded) per.set(l.args.refundId!, (per.get(l.args.refundId!) ?? 0) + 1);
  return { perRefund: per, batches: settled.length };
}

async function allResolved() {
  const open = await q(`select id from operator_txs where state not in ('done', 'rejected')`);
  return open.length === 0;
}

describe('one operator sender across worker instances', () => {
  it('SIGKILLed after recording (before broadcast), and while its transactions are pending: the next holder sends each exactly once, nonces contiguous', async () => {
    // Two orders paid with no reserve hold (owner's setReserveHold), so a settlement batch is due at once;
    // five with the 7-day hold, for refunds. A first worker only indexes them, then stops (lease released).
    const w0 = await startWorker({}, true);
    await setHold(0n);
    const settleOrders = await paidOrders(2);
    await setHold(7n * 86_400n);
    const refundOrders = await paidOrders(5);
    await until('orders confirmed', async () => (await q(`select 1 from orders where state = 'confirmed'`)).length === 7);
    await w0.stop();

    // Worker 1 takes the lease and dies right after recording its 2nd signed transaction; worker 2 runs
    // alongside it from the start (same database, same operator key) and sends nothing while the lease is held.
    const w1 = await startWorker({ OPERATOR_TX_FAULT: 'kill_after_record:2' }, true);
    expect(await leaseHolderPid()).toBe(w1.pid);
    const w2 = await startWorker();
    const phase1: string[] = [];
    for (const id of refundOrders.slice(0, 3)) phase1.push(await refund(id));
    await until('worker 1 killed by the fault', async () => (await Promise.race([w1.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 100))])) as boolean);
    const killedAt = Date.now();
    const recorded = await q(`select id, state, nonce from operator_txs where nonce is not null order by nonce`);
    expect(recorded.length).toBeGreaterThanOrEqual(2);
    expect(recorded.some((r) => r.state === 'signed')).toBe(true); // recorded, never broadcast

    // Worker 2 takes the lease once it lapses, broadcasts the recorded transaction, sends the rest and the settlement.
    await until('worker 2 holds the lease', async () => (await leaseHolderPid()) === w2.pid);
    const takeover1 = Date.now() - killedAt;
    await until('phase 1 resolved', async () => (await q(`select 1 from settlements where operator_tx_id is not null`)).length > 0 && (await allResolved()));
    await until('phase 1 refunds completed', async () => (await q(`select 1 from refunds where id = any($1) and state = 'completed'`, [phase1])).length === 3);

    // Phase 2: a third instance stands by; mining paused; worker 2 sends two refunds into the mempool and is
    // killed while they are pending; worker 3 takes the lease and follows them to their outcome.
    const w3 = await startWorker();
    await stack.chain.anvil.setIntervalMining({ interval: 0 });
    await stack.chain.anvil.setAutomine(false);
    const phase2 = [await refund(refundOrders[3]!), await refund(refundOrders[4]!)];
    await until('phase 2 sent', async () => (await q(`select 1 from operator_txs where purpose = 'refund' and ref_id = any($1) and state = 'sent'`, [phase2])).length === 2);
    expect(await leaseHolderPid()).toBe(w2.pid);
    await w2.kill();
    const killed2At = Date.now();
    await until('worker 3 holds the lease', async () => (await leaseHolderPid()) === w3.pid);
    const takeover2 = Date.now() - killed2At;
    await stack.chain.anvil.setIntervalMining({ interval: 1 });
    await until('phase 2 resolved', allResolved);
    await until('phase 2 refunds completed', async () => (await q(`select 1 from refunds where id = any($1) and state = 'completed'`, [phase2])).length === 2);

    // Exactly once on chain, contiguous nonces from the operator's first, all succeeded, gas recorded.
    const txs = await q(`select purpose, ref_id, state, outcome, nonce::text as nonce, gas_used::text as gas_used, effective_gas_price::text as price from operator_txs order by nonce`);
    expect(txs.map((t) => [t.state, t.outcome])).toEqual(txs.map(() => ['done', 'success']));
    expect(txs.map((t) => Number(t.nonce))).toEqual(txs.map((_, i) => i));
    expect(txs.every((t) => BigInt(t.gas_used) > 0n && BigInt(t.price) > 0n)).toBe(true);
    const sender = (await operatorLease()).sender as Hex;
    expect(await stack.chain.publicClient.getTransactionCount({ address: sender })).toBe(txs.length);
    const counts = await onChainCounts();
    expect(counts.perRefund.size).toBe(5);
    expect([...counts.perRefund.values()]).toEqual([1, 1, 1, 1, 1]);
    expect(counts.batches).toBe(1);
    expect((await q(`select state from settlements`)).map((s) => s.state)).toEqual(['confirmed']);
    expect((await q(`select count(*)::int as n from settlement_items where state = 'released'`))[0].n).toBe(settleOrders.length);
    console.info(`operator sender: ${txs.length} transactions, takeover after SIGKILL ${takeover1} ms and ${takeover2} ms (lease 3 s), gas per tx ${txs.map((t) => `${t.purpose}:${t.gas_used}`).join(' ')}`);
    const logs = workers.flatMap((w) => w.logs).join('\n');
    expect(logs).not.toMatch(/nonce consumed by a transaction that is not ours/);
    expect(logs).not.toContain(stack.chain.rpcUrl);
  }, 300_000);
});
