import { erc20Abi, keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { indexedUntil } from '../../src/modules/indexer/repo.js';
import { createIndexer, type ChainEventHandlers } from '../../src/modules/indexer/service.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../helpers/chain.js';
import { payAsBuyer, setupPlatform } from '../helpers/flow.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { startRpcProxy, type RpcCall, type RpcProxy } from '../reliability/helpers/rpc-proxy.js';

/**
 * The indexer's integrity on anvil, its RPC behind a rewriting proxy (mining paused: blocks come only
 * from the test): the finality target, the cursor block's hash re-checked each tick, a log re-included at
 * another block and index applied once, USDC sent straight to the router, and the new router events.
 */
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let chain: TestChain;
let proxy: RpcProxy;
let h: Harness;
let P: Awaited<ReturnType<typeof setupPlatform>>;
let operatorKey: Hex;
const CHAIN = 84532;
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  chain = await startTestChain({ buyers: 2 });
  const keys = await authoriseServiceKeys(chain);
  operatorKey = keys.operatorPrivateKey;
  await chain.anvil.setIntervalMining({ interval: 0 });
  proxy = await startRpcProxy(chain.rpcUrl);
  h = await createHarness({
    chains: [{ chainId: CHAIN, rpcUrl: proxy.url, router: chain.router, usdc: chain.usdc, confirmations: 1 }],
    config: { signerPrivateKey: keys.signerPrivateKey, operatorPrivateKey: keys.operatorPrivateKey, serviceTreasury: chain.treasury },
  });
  P = await setupPlatform(h);
});
afterAll(async () => {
  await h?.services.indexer.stop();
  await h?.close();
  await proxy?.close();
  await chain?.stop();
});

const index = () => h.services.indexer.runOnce(CHAIN);
const status = async () => (await h.request('GET', '/_/indexer/status', { headers: admin })).body.chains[0];
const orderState = async (id: string) => (await h.request('GET', `/v1/orders/${id}`, { key: P.p.secretKey })).body.state as string;
const setFinality = (f: 'latest' | 'safe' | 'finalized') => (h.services.chains.get(CHAIN).finality = f);
const alerts = async (kind: string) => (await h.db.selectFrom('chain_alerts').select('detail').where('kind', '=', kind).execute());

async function paidOrder(tag: string, buyer = 0) {
  const o = await h.request('POST', '/v1/orders', { key: P.p.secretKey, body: { merchant_id: P.m.external_id, order_no: `${tag}-${Date.now()}`, chain_id: CHAIN, token: 'USDC', amount: '4.00' } });
  expect(o.status).toBe(201);
  const paid = await payAsBuyer(chain, chain.buyers[buyer]!, o.body);
  return { id: o.body.id as string, tx: paid.hash, block: paid.receipt.blockNumber };
}

describe('finality: min(head − confirmations, the tag\'s block)', () => {
  it('with FINALITY=safe, anvil\'s safe block (head − 32) holds a payment back until it is that deep', async () => {
    await index();
    setFinality('safe');
    const o = await paidOrder('safe');
    await chain.mine(3);
    await index();
    expect(await orderState(o.id)).toBe('pending_payment');
    const s = await status();
    expect(s).toMatchObject({ finality: 'safe', finality_source: 'tag' });
    expect(BigInt(s.target)).toBeLessThan(BigInt(s.head) - 1n);
    expect(BigInt(s.cursor)).toBeLessThan(o.block);
    await chain.mine(32);
    await index();
    expect(await orderState(o.id)).toBe('confirmed');
  });

  it('takes the deeper bound: the tag when it is below head − confirmations, else the depth', async () => {
    const head = await chain.publicClient.getBlockNumber();
    const rewriteSafe = (n: bigint | 'latest') => proxy.hook({
      request: (c: RpcCall) => (c.method === 'eth_getBlockByNumber' && c.params?.[0] === 'safe' ? { ...c, params: [n === 'latest' ? 'latest' : toHex(n), false] } : c),
    });
    rewriteSafe(head - 3n);
    await index();
    expect(await status()).toMatchObject({ finality_source: 'tag', target: String(head - 3n), cursor: String(head - 3n) });
    rewriteSafe('latest'); // the node calls its head safe: the depth is deeper
    await index();
    expect(await status()).toMatchObject({ finality_source: 'depth', target: String(head - 1n), cursor: String(head - 1n) });
    proxy.hook({});
  });

  it('an RPC that refuses the tag: the depth alone, shown in the status', async () => {
    proxy.hook({ request: (c) => (c.method === 'eth_getBlockByNumber' && c.params?.[0] === 'safe' ? { error: { code: -32602, message: 'invalid block tag' } } : c) });
    const o = await paidOrder('fallback');
    await chain.mine(1);
    await index();
    expect(await orderState(o.id)).toBe('confirmed');
    expect(await status()).toMatchObject({ finality_source: 'depth_fallback', last_error: null });
    proxy.hook({});
    setFinality('latest');
  });
});

describe('reorg checks', () => {
  it('a log whose block hash is not its block\'s canonical hash is not applied; the next tick applies it', async () => {
    const o = await paidOrder('mismatch');
    await chain.mine(1);
    const cursor = (await status()).cursor;
    proxy.hook({ response: (c, r) => (c.method === 'eth_getLogs' ? (r as { blockHash: string }[]).map((l) => ({ ...l, blockHash: keccak256(l.blockHash as Hex) })) : r) });
    expect(await index()).toBe(0);
    expect(await orderState(o.id)).toBe('pending_payment');
    expect((await status()).cursor).toBe(cursor);
    proxy.hook({});
    await index();
    expect(await orderState(o.id)).toBe('confirmed');
  });

  it('a reorg below the depth is alerted once and read again; the payment re-included at another block and index applies once', async () => {
    const o = await paidOrder('reincluded');
    await chain.mine(2);
    await index();
    expect(await orderState(o.id)).toBe('confirmed');
    const until = await indexedUntil(h.db, CHAIN);
    const cursorBlock = await chain.publicClient.getBlock({ blockNumber: until!.block });
    expect(until!.time.getTime()).toBe(Number(cursorBlock.timestamp) * 1000);

    // From the payment's block on, every block has another hash; the payment's log now sits one block later.
    const moved = await chain.publicClient.getBlock({ blockNumber: o.block + 1n });
    const fake = (hash: string) => keccak256(`${hash as Hex}ff`);
    let deliveredMoved = 0;
    proxy.hook({ response: (c, r) => {
      if (c.method === 'eth_getBlockByNumber' && r && BigInt((r as { number: string }).number) >= o.block) return { ...(r as object), hash: fake((r as { hash: string }).hash) };
      if (c.method !== 'eth_getLogs') return r;
      return (r as { blockNumber: string; blockHash: string; transactionHash: string; logIndex: string; topics: string[] }[]).map((l) => {
        if (BigInt(l.blockNumber) < o.block) return l;
        if (l.transactionHash !== o.tx || l.topics.length !== 4) return { ...l, blockHash: fake(l.blockHash) };
        deliveredMoved++;
        return { ...l, blockNumber: toHex(o.block + 1n), blockHash: fake(moved.hash), logIndex: toHex(BigInt(l.logIndex) + 7n) };
      });
    } });
    await index();
    await chain.mine(1);
    await index();
    await index();
    proxy.hook({});
    expect(deliveredMoved).toBeGreaterThan(0); // the re-read saw the payment at its new place
    expect(await alerts('reorg_below_depth')).toHaveLength(1);
    const events = await h.db.selectFrom('events').select('id').where('type', '=', 'order.confirmed').where('platform_id', '=', P.p.platformId).execute();
    const paidLogs = await h.db.selectFrom('chain_logs').select('event_key').where('event_name', '=', 'OrderPaid').where('tx_hash', '=', o.tx).execute();
    expect(paidLogs).toHaveLength(1);
    expect(events.length).toBe((await h.db.selectFrom('orders').select('id').where('state', '=', 'confirmed').execute()).length);
    expect(await h.count('unmatched_transfers')).toBe(0);
  });
});

describe('USDC sent straight to the router', () => {
  it('is listed once for admins; a payment is not; ExcessRecovered marks it recovered', async () => {
    const buyer = chain.buyers[1]!;
    const sent = await chain.walletClientFor(buyer).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [chain.router, 1_234_567n] });
    await chain.confirm(sent);
    await paidOrder('ordinary', 1);
    await chain.mine(1);
    await index();
    await h.db.updateTable('chain_cursors').set({ last_block: 0n, last_block_hash: null }).where('chain_id', '=', CHAIN).execute(); // read it all again
    await index();
    const list = await h.request('GET', '/_/unmatched-transfers', { headers: admin });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ object: 'unmatched_transfer', chain_id: CHAIN, tx_hash: sent, value: '1234567', amount: '1.234567', recovered: false });
    expect(list.body.data[0].from.toLowerCase()).toBe(buyer.address.toLowerCase());
    expect(await alerts('unmatched_transfer')).toHaveLength(1);
    expect((await h.request('GET', '/_/unmatched-transfers')).status).toBe(401);

    const recover = await chain.walletClientFor(chain.owner).writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'recoverExcess', args: [chain.usdc, chain.treasury] });
    await chain.confirm(recover);
    await chain.mine(1);
    await index();
    const after = (await h.request('GET', '/_/unmatched-transfers', { headers: admin })).body.data;
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ recovered: true, recovered_tx_hash: recover });
    expect(await alerts('excess_recovered')).toHaveLength(1);
  });
});

describe('new router events', () => {
  it('PayOrderCancelled and RefundCancelled reach their handlers with the chain time; OrderPaid carries releaseAfter', async () => {
    const cancelled: unknown[] = [];
    const paid: { releaseAfter: bigint }[] = [];
    const s = h.services;
    // OrderPaid runs go through the set-based path (issue 20); the batch it is handed has the single event's shape.
    const handlers: ChainEventHandlers = {
      ...s.chainEvents,
      PayOrderCancelled: async (_tx, e) => void cancelled.push(e),
      RefundCancelled: async (_tx, e) => void cancelled.push(e),
      OrderPaid: async (tx, es) => (paid.push(...es), s.chainEvents.OrderPaid(tx, es)),
    };
    const indexer = createIndexer({ db: h.db, config: h.config, chains: s.chains, handlers, logger: s.logger, metrics: s.metrics });
    const operator = chain.walletClientFor(privateKeyToAccount(operatorKey));
    const orderId = keccak256(toHex('cancel-me'));
    const refundId = keccak256(toHex('cancel-refund'));
    const c1 = await operator.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'cancelOrders', args: [[orderId]] });
    const r1 = await chain.confirm(c1);
    const c2 = await operator.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'cancelRefund', args: [refundId] });
    const r2 = await chain.confirm(c2);
    const o = await paidOrder('release');
    await chain.mine(1);
    await indexer.runOnce(CHAIN);
    const time = async (n: bigint) => new Date(Number((await chain.publicClient.getBlock({ blockNumber: n })).timestamp) * 1000);
    expect(cancelled).toEqual([
      { chainId: CHAIN, orderOnchainId: orderId, txHash: c1, blockTime: await time(r1.blockNumber) },
      { chainId: CHAIN, refundOnchainId: refundId, txHash: c2, blockTime: await time(r2.blockNumber) },
    ]);
    const block = await chain.publicClient.getBlock({ blockNumber: o.block });
    const hold = await chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'reserveHoldSeconds' });
    expect(paid.at(-1)!.releaseAfter).toBe(block.timestamp + hold);
    expect(await h.db.selectFrom('chain_logs').select('event_key').where('event_name', 'in', ['PayOrderCancelled', 'RefundCancelled']).execute())
      .toEqual(expect.arrayContaining([{ event_key: `PayOrderCancelled:${orderId}` }, { event_key: `RefundCancelled:${refundId}` }]));
  });

  it('an event the handler table has no entry for is an unhandled_event alert', async () => {
    const s = h.services;
    const handlers = { ...s.chainEvents, PayOrderCancelled: undefined } as unknown as ChainEventHandlers;
    const indexer = createIndexer({ db: h.db, config: h.config, chains: s.chains, handlers, logger: s.logger, metrics: s.metrics });
    const operator = chain.walletClientFor(privateKeyToAccount(operatorKey));
    await chain.confirm(await operator.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'cancelOrders', args: [[keccak256(toHex('unhooked'))]] }));
    await chain.mine(1);
    await indexer.runOnce(CHAIN);
    expect((await alerts('unhandled_event')).map((a) => (typeof a.detail === 'string' ? JSON.parse(a.detail) : a.detail).event)).toContain('PayOrderCancelled');
  });
});

describe('large eth_getLogs answers', () => {
  it('reads an answer past viem\'s 10 MiB default in one request, and leaves out logs of any other address', async () => {
    const o = await paidOrder('large-answer');
    await chain.mine(1);
    // ~12 MiB of well-formed OrderPaid logs from another contract, in the answer to the router's own query.
    let padded = 0;
    proxy.hook({ response: (c, r) => {
      const logs = r as { address: string; topics: string[] }[];
      if (c.method !== 'eth_getLogs' || !logs.some((l) => l.topics.length === 4)) return r;
      const real = logs.find((l) => l.topics.length === 4)!;
      padded++;
      return [...logs, ...Array.from({ length: 9_000 }, () => ({ ...real, address: '0x000000000000000000000000000000000000dEaD' }))];
    } });
    const getLogsSpans = proxy.stats.getLogsSpans.length;
    expect(await index()).toBe(1);
    proxy.hook({});
    expect(padded).toBe(1); // one request, answered whole (no halving after a refused read)
    expect(proxy.stats.getLogsSpans.length - getLogsSpans).toBeLessThanOrEqual(4);
    expect(await orderState(o.id)).toBe('confirmed');
    expect(await h.db.selectFrom('chain_logs').select('onchain_id').where('event_name', '=', 'OrderPaid').where('tx_hash', '=', o.tx).execute()).toHaveLength(1);
  });
});
