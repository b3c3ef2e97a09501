/**
 * Indexer: events/s applied from a backlog of OrderPaid logs on anvil, and the latency from the block that
 * brings a payment to its confirmation depth to the order.confirmed webhook arriving at a local receiver.
 *
 * One anvil (interval mining, --block-time 1: never automine, anvil 1.7.1 hangs with concurrent
 * transactions in automine), block gas limit raised so a block holds ~1,000 payments. Orders are prepared
 * and signed once by the service and inserted into every database under test (same ids, wallets and
 * signatures), so one set of payments on chain serves every database.
 */
import { encodeFunctionData, erc20Abi, maxUint256, parseGwei, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { payOrderFromJson } from '../../src/chain/eip712.js';
import { createLogger } from '../../src/lib/logger.js';
import { startWorkers } from '../../src/workers.js';
import { startTestChain, type TestChain } from '../../test/helpers/chain.js';
import { createHarness, type Harness } from '../../test/helpers/harness.js';
import { freshLocation, openLocation, type DbKind, type DbLocation } from '../lib/db.js';
import { startReceiver, type Receiver } from '../lib/receiver.js';
import { indexerLimit } from './indexer-limit.js';
import { loadAvg, log, percentile, round, sleep } from '../lib/util.js';

const BUYERS = 50;
const LATENCY_PAYMENTS = 100;
const LATENCY_EVERY_MS = 200;
const GAS = 400_000n;
const fees = { maxFeePerGas: parseGwei('50'), maxPriorityFeePerGas: parseGwei('1') };

type Setup = { kind: DbKind; loc: DbLocation; h: Harness; platformId: string; merchantId: string; secretKey: string };
type Prepared = { id: string; eip712: string; signature: string } & Record<string, unknown>;

async function rpc(chain: TestChain, body: unknown): Promise<any> {
  const res = await fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

async function setupDb(kind: DbKind, chain: TestChain, keys: { signer: Hex; operator: Hex }, wallets: { platform: Address; merchant: Address }, hookUrl: string): Promise<Setup> {
  const loc = await freshLocation(kind);
  const h = await createHarness({
    database: openLocation(loc),
    // New heads by subscription, as the devnet and a production RPC_WS_URL_<id> run it (the poll stays underneath).
    chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, wsUrl: chain.rpcUrl.replace(/^http/, 'ws'), router: chain.router, usdc: chain.usdc, confirmations: 1 }],
    config: { signerPrivateKey: keys.signer, operatorPrivateKey: keys.operator, serviceTreasury: chain.treasury },
    logger: createLogger('silent', 'devnet'),
  });
  const p = await h.platform({ platform_wallet: wallets.platform });
  const m = await h.request('POST', '/v1/onboarding/merchants', {
    key: p.secretKey, body: { external_id: 'm_bench', name: 'Bench Goods', merchant_wallet: wallets.merchant, chain_id: chain.chainId, reserve_bps: 1000 },
  });
  if (m.status !== 201) throw new Error(m.text);
  const e = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: hookUrl, subscribed_events: ['*'] } });
  if (e.status !== 201) throw new Error(e.text);
  return { kind, loc, h, platformId: p.platformId, merchantId: m.body.id, secretKey: p.secretKey };
}

async function prepareOrders(s: Setup, n: number): Promise<Prepared[]> {
  const rows: Prepared[] = [];
  const deadline = new Date(Date.now() + 6 * 3600_000);
  for (let i = 0; i < n; i++) {
    rows.push(await s.h.services.orders.prepare({ platformId: s.platformId, uncheckedKeyId: null }, {
      merchantExternalId: 'm_bench', orderNo: `ix_${i}`, chainId: 84532, amount: '1.00', metadata: { i }, deadline, payer: null, checkoutSessionId: null, captureBefore: null,
    }) as unknown as Prepared);
  }
  return rows;
}

async function insertOrders(s: Setup, rows: Prepared[]) {
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500).map((r) => ({ ...r, platform_id: s.platformId, merchant_id: s.merchantId }));
    await s.h.db.insertInto('orders').values(batch as never).execute();
  }
}

/** Signs payOrder transactions locally with explicit nonces and sends them in JSON-RPC batches. */
function payer(chain: TestChain, buyers: LocalAccount[], nonces: number[]) {
  let next = 0;
  return async function payTx(order: Prepared): Promise<Hex> {
    const b = next++ % buyers.length;
    const data = encodeFunctionData({ abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(JSON.parse(order.eip712)), order.signature as Hex] });
    return buyers[b]!.signTransaction!({ type: 'eip1559', chainId: chain.chainId, nonce: nonces[b]!++, to: chain.router, data, gas: GAS, value: 0n, ...fees });
  };
}

async function sendRaw(chain: TestChain, raws: Hex[]): Promise<Hex[]> {
  const out = await rpc(chain, raws.map((raw, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [raw] })));
  const failed = out.filter((r: any) => r.error);
  if (failed.length) throw new Error(`eth_sendRawTransaction: ${JSON.stringify(failed[0].error)}`);
  return out.sort((a: any, b: any) => a.id - b.id).map((r: any) => r.result);
}

async function waitNonces(chain: TestChain, buyers: LocalAccount[], nonces: number[], timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const counts = await Promise.all(buyers.map((b) => chain.publicClient.getTransactionCount({ address: b.address, blockTag: 'latest' })));
    if (counts.every((c, i) => c >= nonces[i]!)) return;
    await sleep(250);
  }
  throw new Error('payments were not all mined in time');
}

async function generate(chain: TestChain, buyers: LocalAccount[], nonces: number[], orders: Prepared[]) {
  const pay = payer(chain, buyers, nonces);
  const started = performance.now();
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < orders.length; i += 100) {
    const raws: Hex[] = [];
    for (const o of orders.slice(i, i + 100)) raws.push(await pay(o));
    inFlight.push(sendRaw(chain, raws));
    if (inFlight.length >= 4) await inFlight.shift();
  }
  await Promise.all(inFlight);
  const sent = performance.now();
  await waitNonces(chain, buyers, nonces, 300_000);
  const seconds = (performance.now() - started) / 1000;
  // The last payments' block must reach the confirmation depth (1) before the backlog is complete.
  const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  while ((await chain.publicClient.getBlockNumber({ cacheTime: 0 })) <= head) await sleep(100);
  return { logs: orders.length, seconds: round(seconds, 1)!, send_seconds: round((sent - started) / 1000, 1)!, tx_per_s: round(orders.length / seconds, 0)! };
}

/** Peak resident memory of this process while `fn` runs (sampled every 100 ms). */
async function peakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peak_mib: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  try {
    const value = await fn();
    return { value, peak_mib: round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20, 0)! };
  } finally {
    clearInterval(timer);
  }
}

async function indexBacklog(s: Setup, chainId: number) {
  const started = performance.now();
  const { value: applied, peak_mib } = await peakRss(() => s.h.services.indexer.runOnce(chainId, 100_000));
  const seconds = (performance.now() - started) / 1000;
  const confirmed = Number((await s.h.db.selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('state', '=', 'confirmed').executeTakeFirstOrThrow()).n);
  return { db: s.kind, logs: applied, confirmed, seconds: round(seconds, 2)!, per_s: round(applied / seconds, 0)!, rss_peak_mib: peak_mib, load_avg: loadAvg() };
}

/** Wall-clock time at which each block number was first seen (polled every 10 ms). */
function watchBlocks(chain: TestChain) {
  const seen = new Map<bigint, number>();
  let last: bigint | null = null;
  let running = true;
  const loop = (async () => {
    while (running) {
      const n = await chain.publicClient.getBlockNumber({ cacheTime: 0 }).catch(() => null);
      const at = performance.timeOrigin + performance.now();
      if (n !== null && (last === null || n > last)) {
        for (let b = (last ?? n - 1n) + 1n; b <= n; b++) seen.set(b, at);
        last = n;
      }
      await sleep(10);
    }
  })();
  return { seen, stop: async () => { running = false; await loop; } };
}

async function latency(s: Setup, chain: TestChain, receiver: Receiver, buyers: LocalAccount[], nonces: number[], orders: Prepared[]) {
  // The backlog's own deliveries are not part of this measurement.
  await s.h.db.updateTable('webhook_deliveries').set({ state: 'failed', last_error: 'bench: backlog' }).where('state', '=', 'pending').execute();
  await receiver.call('reset');
  const stopWorkers = await startWorkers(s.h.services);
  const blocks = watchBlocks(chain);
  const pay = payer(chain, buyers, nonces);
  const hashes = new Map<string, Hex>();
  try {
    for (const o of orders) {
      const [hash] = await sendRaw(chain, [await pay(o)]);
      hashes.set(o.id, hash!);
      await sleep(LATENCY_EVERY_MS);
    }
    const until = Date.now() + 30_000;
    let arrivals: { type: string; object_id: string | null; at: number }[] = [];
    while (Date.now() < until) {
      arrivals = (await receiver.call<typeof arrivals>('arrivals')).filter((a) => a.type === 'order.confirmed');
      if (arrivals.length >= orders.length) break;
      await sleep(200);
    }
    const arrivedAt = new Map(arrivals.map((a) => [a.object_id!, a.at]));
    // Where the time goes: depth → the indexer's transaction (orders.confirmed_at) → the receiver.
    const confirmedAt = new Map((await s.h.db.selectFrom('orders').select(['id', 'confirmed_at']).where('id', 'in', [...hashes.keys()]).execute())
      .map((r) => [r.id, r.confirmed_at?.getTime() ?? null]));
    const fromDepth: number[] = [];
    const fromBlock: number[] = [];
    const toIndexed: number[] = [];
    const indexedToArrival: number[] = [];
    for (const [orderId, hash] of hashes) {
      const at = arrivedAt.get(orderId);
      if (at === undefined) continue;
      const receipt = await chain.publicClient.getTransactionReceipt({ hash });
      const depthSeen = blocks.seen.get(receipt.blockNumber + 1n); // confirmations = 1
      const blockSeen = blocks.seen.get(receipt.blockNumber);
      const indexed = confirmedAt.get(orderId) ?? null;
      if (depthSeen !== undefined) fromDepth.push(at - depthSeen);
      if (blockSeen !== undefined) fromBlock.push(at - blockSeen);
      if (depthSeen !== undefined && indexed !== null) toIndexed.push(indexed - depthSeen);
      if (indexed !== null) indexedToArrival.push(at - indexed);
    }
    return {
      db: s.kind, confirmations: 1, block_time_s: 1, payments: orders.length, samples: fromDepth.length,
      p50_ms: round(percentile(fromDepth, 50), 0), p99_ms: round(percentile(fromDepth, 99), 0), max_ms: round(percentile(fromDepth, 100), 0),
      from_block_p50_ms: round(percentile(fromBlock, 50), 0), from_block_p99_ms: round(percentile(fromBlock, 99), 0),
      depth_to_indexed_p50_ms: round(percentile(toIndexed, 50), 0), depth_to_indexed_p99_ms: round(percentile(toIndexed, 99), 0),
      indexed_to_webhook_p50_ms: round(percentile(indexedToArrival, 50), 0), indexed_to_webhook_p99_ms: round(percentile(indexedToArrival, 99), 0),
      load_avg: loadAvg(),
    };
  } finally {
    await blocks.stop();
    await stopWorkers();
  }
}

export async function benchIndexer(o: { logs: number; dbs: DbKind[] }) {
  const memoryLogs = Number(process.env.BENCH_INDEXER_MEMORY_LOGS ?? 0);
  if (memoryLogs > 0) {
    const { benchIndexerMemory } = await import('./indexer-memory.js');
    const memory = [];
    for (const kind of o.dbs) memory.push(await benchIndexerMemory({ logs: memoryLogs, kind }));
    return { memory };
  }
  log('indexer: starting anvil (interval mining, 1 s blocks)');
  const chain = await startTestChain({ buyers: BUYERS });
  const receiver = await startReceiver(true);
  const setups: Setup[] = [];
  try {
    await rpc(chain, { jsonrpc: '2.0', id: 1, method: 'evm_setBlockGasLimit', params: ['0x3B9ACA00'] }); // 1e9
    const keys = { signer: generatePrivateKey(), operator: generatePrivateKey() };
    const owner = chain.walletClientFor(chain.owner);
    await chain.confirm(await owner.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'addSigner', args: [privateKeyToAccount(keys.signer).address] }));
    await chain.confirm(await owner.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'setOperator', args: [privateKeyToAccount(keys.operator).address] }));
    const wallets = { platform: privateKeyToAccount(generatePrivateKey()).address, merchant: privateKeyToAccount(generatePrivateKey()).address };
    for (const kind of o.dbs) setups.push(await setupDb(kind, chain, keys, wallets, receiver.url));
    // The same orders and endpoint in a second database per kind, for the set-based SQL limit.
    const limits: Setup[] = [];
    for (const kind of o.dbs) limits.push(await setupDb(kind, chain, keys, wallets, receiver.url));
    setups.push(...limits);

    log(`indexer: preparing and signing ${o.logs + LATENCY_PAYMENTS} orders`);
    const orders = await prepareOrders(setups[0]!, o.logs + LATENCY_PAYMENTS);
    for (const s of setups) await insertOrders(s, orders);

    log(`indexer: ${BUYERS} buyers approve the router`);
    const buyers = chain.buyers;
    const approvals = await Promise.all(buyers.map((b) => chain.walletClientFor(b).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'approve', args: [chain.router, maxUint256] })));
    for (const hash of approvals) await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
    const nonces = await Promise.all(buyers.map((b) => chain.publicClient.getTransactionCount({ address: b.address, blockTag: 'pending' })));

    log(`indexer: paying ${o.logs} orders on chain`);
    const generation = await generate(chain, buyers, nonces, orders.slice(0, o.logs));
    log(`  ${generation.logs} payments mined in ${generation.seconds} s (${generation.tx_per_s} tx/s)`);

    const backlog = [];
    const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
    for (const [i, s] of setups.slice(0, o.dbs.length).entries()) {
      log(`indexer/${s.kind}: applying the backlog`);
      const row = await indexBacklog(s, chain.chainId);
      log(`  ${row.logs} logs in ${row.seconds} s (${row.per_s}/s, peak RSS ${row.rss_peak_mib} MiB)`);
      log(`indexer/${s.kind}: the same rows by set-based SQL (the limit)`);
      const limit = await indexerLimit(limits[i]!.h, chain, head - 1n);
      log(`  ${limit.logs} logs in ${limit.seconds} s (${limit.per_s}/s)`);
      backlog.push({ ...row, limit, ratio: round(row.per_s / limit.per_s, 2) });
    }
    // Latency on PostgreSQL when it is under test (production), else on the first database.
    const target = setups.find((s) => s.kind === 'postgres') ?? setups[0]!;
    log(`indexer/${target.kind}: confirmation → webhook latency (${LATENCY_PAYMENTS} payments, one every ${LATENCY_EVERY_MS} ms)`);
    const lat = await latency(target, chain, receiver, buyers, nonces, orders.slice(o.logs));
    log(`  p50 ${lat.p50_ms} ms p99 ${lat.p99_ms} ms (${lat.samples} samples)`);
    return { generation, backlog, latency: lat };
  } finally {
    for (const s of setups) {
      await s.h.services.indexer.stop();
      await s.h.close();
      await s.loc.dispose();
    }
    await receiver.stop();
    await chain.stop();
  }
}
