/**
 * Gasless relay throughput (issue 17): in ONE run against the same service (PostgreSQL, workers running:
 * indexer, operator and relayer senders), N buyers pay N hosted checkout sessions
 *  (a) themselves: each its own funded EOA sends approve + payOrder at once (two explicit nonces, fixed gas,
 *      so both land in the same block: the fastest a buyer can do it), all N concurrently;
 *  (b) gaslessly: N zero-ETH buyers sign ReceiveWithAuthorization from their session's `gasless.typed_data`
 *      and POST /v1/checkout/sessions/{token}/relay, all N concurrently; the relayer sends.
 * In both phases the page has read its session before the clock starts (the buyer clicks pay on a loaded page):
 * each rate is orders/s from the buyers' first signature until every order is `confirmed` in the service
 * (1 confirmation, anvil interval mining with 1 s blocks, never automine). The ratio gasless / self must be ≥ 0.8.
 *
 * With 1 s blocks a phase's time is counted in blocks: which block the last payment makes decides it. So every
 * phase starts just after a block appears (both face the same second until the next), the run makes
 * BENCH_GASLESS_ROUNDS rounds (default 3) alternating which phase goes first, and the ratio is of the medians.
 * Each phase prints the blocks its payments were mined in, when each appeared, and the CPU seconds anvil,
 * PostgreSQL and this process spent while the buyers sent.
 * BENCH_GASLESS_N: buyers per phase (default 200). BENCH_GASLESS_READ_IN_WINDOW=1 times the gasless phase's
 * session reads too (as measured before 2026-11-25).
 *
 * The service runs in this process, api and workers together (as `--role all`), and the buyers' signing shares
 * its CPU. Chosen over separate api and worker processes: an accepted relay wakes the relayer's sender in the
 * same process (operator-txs `poke`), which a separate worker process would only see at its next poll (no
 * cross-process wake yet).
 */
import { sql } from 'kysely';
import { encodeFunctionData, erc20Abi, parseGwei, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { payOrderFromJson } from '../../src/chain/eip712.js';
import { createLogger } from '../../src/lib/logger.js';
import { receiveWithAuthorizationTypes } from '../../src/modules/relay/typed-data.js';
import { startWorkers } from '../../src/workers.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../../test/helpers/chain.js';
import { createHarness, type Harness } from '../../test/helpers/harness.js';
import { freshLocation, openLocation, type DbKind } from '../lib/db.js';
import { cpuSplit, loadAvg, log, round, sleep } from '../lib/util.js';

const fees = { maxFeePerGas: parseGwei('50'), maxPriorityFeePerGas: parseGwei('1') };
// One key and one client address stand here for the many a real deployment's buyers come from.
const BENCH_RATES = { perSecond: 1_000_000, burst: 1_000_000, publicPerSecond: 1_000_000, publicBurst: 1_000_000, authPerMinute: 10_000 };

type Session = { token: string; orderId: string };

async function sessions(h: Harness, key: string, merchantId: string, prefix: string, n: number): Promise<Session[]> {
  const out: Session[] = [];
  for (let i = 0; i < n; i++) {
    const s = await h.request('POST', '/v1/checkout/sessions', { key, body: { merchant_id: merchantId, order_no: `${prefix}_${i}`, chain_id: 84532, token: 'USDC', amount: '12.345678' } });
    if (s.status !== 201) throw new Error(s.text);
    out.push({ token: s.body.session_token, orderId: s.body.order_id ?? s.body.order?.id });
  }
  return out;
}

async function read(h: Harness, token: string): Promise<any> {
  const r = await h.request('GET', `/v1/checkout/sessions/${token}`);
  if (r.status !== 200) throw new Error(r.text);
  return r.body;
}

/** Polls the orders' state until all are confirmed; returns the seconds since `started`. */
async function allConfirmed(h: Harness, ids: string[], started: number, timeoutMs = 300_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const n = Number((await h.db.selectFrom('orders').select((eb) => eb.fn.countAll<string>().as('n')).where('id', 'in', ids).where('state', '=', 'confirmed').executeTakeFirstOrThrow()).n);
    if (n === ids.length) return (performance.now() - started) / 1000;
    if (process.env.BENCH_GASLESS_TRACE && Date.now() % 1000 < 60) {
      const txs = (await sql<{ state: string; n: number }>`select state, count(*)::int as n from operator_txs where key_role = 'relayer' group by state`.execute(h.db)).rows;
      log(`  t=${round((performance.now() - started) / 1000, 1)} confirmed ${n}/${ids.length}; relayer txs ${txs.map((t) => `${t.state} ${t.n}`).join(', ')}`);
    }
    await sleep(50);
  }
  throw new Error('orders were not all confirmed in time');
}

/** Records when each new block appears (eth_blockNumber every 10 ms), in seconds since `started`. */
function watchBlocks(chain: TestChain, started: () => number) {
  const seen = new Map<bigint, number>();
  let on = true;
  const done = (async () => {
    while (on) {
      const b = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
      if (!seen.has(b)) seen.set(b, (performance.now() - started()) / 1000);
      await sleep(10);
    }
  })();
  return { seen, stop: async () => { on = false; await done; } };
}

/** Where a phase's payments were mined: the blocks, and when each appeared (s since the phase's start). */
async function minedIn(h: Harness, ids: string[], seen: Map<bigint, number>) {
  const rows = await h.db.selectFrom('orders').select(['block_number', (eb) => eb.fn.countAll<string>().as('n')]).where('id', 'in', ids).groupBy('block_number').orderBy('block_number').execute();
  return rows.map((r) => ({ block: Number(r.block_number), payments: Number(r.n), appeared_s: round(seen.get(BigInt(r.block_number!)) ?? NaN, 2) }));
}

/** Seconds since `started` until the relayer has broadcast n transactions (none left queued or only signed). */
async function allSent(h: Harness, n: number, started: number, timeoutMs = 300_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const r = (await sql<{ n: number }>`select count(*)::int as n from operator_txs where key_role = 'relayer' and state not in ('queued', 'signed')`.execute(h.db)).rows[0]!;
    if (r.n >= n) return (performance.now() - started) / 1000;
    await sleep(50);
  }
  throw new Error('relays were not all sent in time');
}

/** A buyer's wallet: approve pay_to for the amount and payOrder, nonces n and n + 1, sent together. */
async function payItself(chain: TestChain, buyer: LocalAccount, pub: any) {
  const message = payOrderFromJson(pub.order.eip712);
  const nonce = await chain.publicClient.getTransactionCount({ address: buyer.address, blockTag: 'pending' });
  const base = { type: 'eip1559' as const, chainId: chain.chainId, value: 0n, ...fees };
  const approve = await buyer.signTransaction!({ ...base, nonce, to: message.token, gas: 100_000n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [pub.order.pay_to as Address, message.amount] }) });
  const pay = await buyer.signTransaction!({ ...base, nonce: nonce + 1, to: pub.order.pay_to as Address, gas: 500_000n, data: encodeFunctionData({ abi: paymentRouterAbi, functionName: 'payOrder', args: [message, pub.order.signature as Hex] }) });
  await chain.publicClient.sendRawTransaction({ serializedTransaction: approve });
  await chain.publicClient.sendRawTransaction({ serializedTransaction: pay });
}

/** The hosted page's gasless path: fill in `from`, sign the typed data as given, post the five fields. */
async function payGasless(h: Harness, buyer: LocalAccount, token: string, loaded?: any) {
  const pub = loaded ?? (await read(h, token));
  if (!pub.gasless?.enabled) throw new Error(`gasless off: ${pub.gasless?.reason}`);
  const td = pub.gasless.typed_data;
  const m = td.message;
  const signature = await buyer.signTypedData({
    domain: td.domain, types: receiveWithAuthorizationTypes, primaryType: 'ReceiveWithAuthorization',
    message: { from: buyer.address, to: m.to, value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore), nonce: m.nonce },
  });
  const r = await h.request('POST', `/v1/checkout/sessions/${token}/relay`, { body: { from: buyer.address, valid_after: m.validAfter, valid_before: m.validBefore, nonce: m.nonce, signature } });
  if (r.status !== 202) throw new Error(`relay: ${r.status} ${r.text}`);
}

type SelfRun = { orders: number; seconds: number; per_s: number; sent_s: number; mined: Awaited<ReturnType<typeof minedIn>>; send_cpu: ReturnType<ReturnType<typeof cpuSplit>> };
type GaslessRun = { orders: number; seconds: number; per_s: number; posted_s: number; sent_s: number; mined: Awaited<ReturnType<typeof minedIn>>; post_cpu: ReturnType<ReturnType<typeof cpuSplit>> };

const median = (xs: number[]) => round([...xs].sort((a, b) => a - b)[xs.length >> 1]!, 1)!;

/** Waits until a new block appears: every phase starts just after one, so both see the same time to the next. */
async function blockJustMined(chain: TestChain) {
  const b0 = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  while ((await chain.publicClient.getBlockNumber({ cacheTime: 0 })) === b0) await sleep(5);
}

/** (a) Every buyer sends approve + payOrder at once; seconds until every order is confirmed in the service. */
async function runSelf(h: Harness, chain: TestChain, buyers: LocalAccount[], reads: any[]): Promise<SelfRun> {
  const ids = reads.map((r) => r.order.id as string);
  await blockJustMined(chain);
  const started = performance.now();
  const blocks = watchBlocks(chain, () => started);
  const cpu = cpuSplit();
  await Promise.all(buyers.map((b, i) => payItself(chain, b, reads[i])));
  const sent = (performance.now() - started) / 1000;
  const sendCpu = cpu();
  const seconds = await allConfirmed(h, ids, started);
  await blocks.stop();
  return { orders: ids.length, seconds: round(seconds, 2)!, per_s: round(ids.length / seconds, 1)!, sent_s: round(sent, 2)!, mined: await minedIn(h, ids, blocks.seen), send_cpu: sendCpu };
}

/** (b) Every zero-ETH buyer signs its session's typed data and posts the relay at once; until all are confirmed. */
async function runGasless(h: Harness, chain: TestChain, buyers: LocalAccount[], list: Session[], reads: any[] | undefined): Promise<GaslessRun> {
  const ids = list.map((x) => x.orderId);
  const relayed = Number((await sql<{ n: number }>`select count(*)::int as n from operator_txs where key_role = 'relayer'`.execute(h.db)).rows[0]!.n);
  await blockJustMined(chain);
  const started = performance.now();
  const blocks = watchBlocks(chain, () => started);
  const sent = allSent(h, relayed + ids.length, started);
  const cpu = cpuSplit();
  await Promise.all(buyers.map((b, i) => payGasless(h, b, list[i]!.token, reads?.[i])));
  const posted = (performance.now() - started) / 1000;
  const postCpu = cpu();
  const seconds = await allConfirmed(h, ids, started);
  await blocks.stop();
  return {
    orders: ids.length, seconds: round(seconds, 2)!, per_s: round(ids.length / seconds, 1)!, posted_s: round(posted, 2)!, sent_s: round(await sent, 2)!,
    mined: await minedIn(h, ids, blocks.seen), post_cpu: postCpu,
  };
}

export async function benchGasless(o: { n: number; rounds: number; db?: DbKind }) {
  const n = o.n;
  const kind = o.db ?? 'postgres';
  log(`gasless: starting anvil (interval mining, 1 s blocks) with ${2 * n} buyers`);
  const chain = await startTestChain({ buyers: 2 * n });
  const loc = await freshLocation(kind);
  let h: Harness | undefined;
  let stopWorkers: (() => Promise<void>) | undefined;
  try {
    await fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_setBlockGasLimit', params: ['0x3B9ACA00'] }) }); // 1e9: a block holds every payment
    const keys = await authoriseServiceKeys(chain);
    const relayerKey = generatePrivateKey();
    await chain.anvil.setBalance({ address: privateKeyToAccount(relayerKey).address, value: 10n ** 21n });
    h = await createHarness({
      database: openLocation(loc),
      chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, router: chain.router, usdc: chain.usdc, confirmations: 1 }],
      config: {
        signerPrivateKey: keys.signerPrivateKey, operatorPrivateKey: keys.operatorPrivateKey, serviceTreasury: chain.treasury,
        relayerPrivateKey: relayerKey, gaslessEnabled: true, gaslessDailyCap: 1_000_000, rateLimits: BENCH_RATES,
      },
      logger: createLogger('silent', 'devnet'),
    });
    const p = await h.platform({ platform_wallet: privateKeyToAccount(generatePrivateKey()).address });
    const m = await h.request('POST', '/v1/onboarding/merchants', {
      key: p.secretKey, body: { external_id: 'm_gasless', name: 'Gasless Goods', merchant_wallet: privateKeyToAccount(generatePrivateKey()).address, chain_id: chain.chainId, reserve_bps: 1000 },
    });
    if (m.status !== 201) throw new Error(m.text);
    const selfBuyers = chain.buyers.slice(0, n);
    const gaslessBuyers = chain.buyers.slice(n);
    for (const b of gaslessBuyers) await chain.anvil.setBalance({ address: b.address, value: 0n }); // zero ETH
    stopWorkers = await startWorkers(h.services);
    const readInWindow = process.env.BENCH_GASLESS_READ_IN_WINDOW === '1';
    const runs: { self: SelfRun[]; gasless: GaslessRun[] } = { self: [], gasless: [] };
    for (let round = 0; round < o.rounds; round++) {
      // Alternate which phase goes first, so neither always runs on a chain and database the other just warmed.
      for (const phase of round % 2 === 0 ? (['self', 'gasless'] as const) : (['gasless', 'self'] as const)) {
        const list = await sessions(h, p.secretKey, m.body.external_id, `${phase}_${round}`, n);
        const reads = await Promise.all(list.map((x) => read(h!, x.token)));
        if (phase === 'self') {
          log(`gasless: round ${round + 1}/${o.rounds} (a) ${n} buyers send approve + payOrder themselves`);
          const r = await runSelf(h, chain, selfBuyers, reads);
          log(`  confirmed by ${r.seconds} s (${r.per_s}/s); all sent by ${r.sent_s} s; mined ${JSON.stringify(r.mined)}; CPU while sending ${JSON.stringify(r.send_cpu)}`);
          runs.self.push(r);
        } else {
          log(`gasless: round ${round + 1}/${o.rounds} (b) ${n} zero-ETH buyers sign and post relays`);
          if (readInWindow) h.services.publicSessions.changed('*');
          const r = await runGasless(h, chain, gaslessBuyers, list, readInWindow ? undefined : reads);
          log(`  posted (202) by ${r.posted_s} s, all broadcast by ${r.sent_s} s, confirmed by ${r.seconds} s (${r.per_s}/s); mined ${JSON.stringify(r.mined)}; CPU while posting ${JSON.stringify(r.post_cpu)}`);
          runs.gasless.push(r);
        }
      }
    }
    const self = median(runs.self.map((r) => r.per_s));
    const gasless = median(runs.gasless.map((r) => r.per_s));
    const ratio = round(gasless / self, 2)!;
    const perRound = runs.self.map((r, i) => round(runs.gasless[i]!.per_s / r.per_s, 2)!);
    log(`  median of ${o.rounds} rounds: self ${self}/s, gasless ${gasless}/s, gasless / self = ${ratio} (target ≥ 0.8); per round ${perRound.join(', ')}`);
    return { db: kind, buyers: n, rounds: o.rounds, confirmations: 1, block_time_s: 1, gasless_reads_timed: readInWindow, self: { per_s: self }, gasless: { per_s: gasless }, ratio, ratio_per_round: perRound, runs, load_avg: loadAvg() };
  } finally {
    await stopWorkers?.();
    if (h) {
      await h.services.indexer.stop();
      await h.close();
    }
    await loc.dispose();
    await chain.stop();
  }
}
