import { isAddressEqual, numberToHex, pad, type Address, type Hex, type RpcLog } from 'viem';
import type { ChainRuntime } from '../chains/service.js';
import { logDecoder } from './decode.js';
import { DEPOSIT_EVENTS, INDEXED_EVENTS, isRangeError, MANAGER_EVENTS, TRANSFER_EVENT, type DepositLog, type RouterLog, type TransferLog } from './events.js';

export const MAX_RANGE = 2_000n;
/** The first range of a chain; it doubles while ranges stay under TARGET_LOGS. */
export const INITIAL_RANGE = 4n;
/**
 * Logs (router + transfers) a range aims at: the next range is sized from the density just read, so a
 * backlog of any depth is read and applied a few thousand logs at a time (memory bounded by this, not by
 * the backlog), while a sparse chain reads up to MAX_RANGE blocks at once.
 */
export const TARGET_LOGS = 4_000;
/** Header requests in flight while reading a range. */
const HEADER_CONCURRENCY = 16;

export type Header = { number: bigint; hash: Hex; time: Date };
export type RangeRead = {
  from: bigint;
  to: bigint;
  logs: RouterLog[];
  transfers: TransferLog[];
  /** USDC transfers into the watched deposit addresses and those addresses' own events (docs/deposits.md). */
  deposits: DepositLog[];
  /** Headers of block `to` and of every block holding a log, read after the logs. */
  headers: Map<bigint, Header>;
  /** A log whose block hash is not the canonical hash of its block (a reorg while reading): apply nothing. */
  inconsistent: { blockNumber: bigint; logHash: Hex; canonicalHash: Hex } | null;
};

/** The range size adapts to provider limits (halved on a range error) and to log density (TARGET_LOGS). */
export type RangeState = { range: bigint };

export async function header(rt: ChainRuntime, blockNumber: bigint): Promise<Header> {
  const b = await rt.publicClient.getBlock({ blockNumber });
  return { number: blockNumber, hash: b.hash as Hex, time: new Date(Number(b.timestamp) * 1000) };
}

const routerLogs = logDecoder(INDEXED_EVENTS);
const transferLogs = logDecoder([TRANSFER_EVENT]);
const managerLogs = logDecoder(MANAGER_EVENTS);
/** Deposit addresses per eth_getLogs request (topic and address lists; providers bound their size). */
const DEPOSITS_PER_REQUEST = 200;

/** eth_getLogs as JSON-RPC asks it (block numbers in hex), for a decoder's events. */
const getLogsRaw = (rt: ChainRuntime, address: Address, topics: (Hex | Hex[] | null)[], from: bigint, to: bigint) =>
  rt.logsClient.request({ method: 'eth_getLogs', params: [{ address, topics, fromBlock: numberToHex(from), toBlock: numberToHex(to) }] }) as Promise<RpcLog[]>;

/**
 * The router's events, USDC transfers to the router (topic 2 = `to`) and, where a SubscriptionManager is configured,
 * its events, as requests read in parallel (the manager's logs join the router's, sorted into chain order later).
 */
async function getRange(rt: ChainRuntime, from: bigint, to: bigint) {
  const manager = rt.subscriptionManager;
  const [logs, transfers, managed] = await Promise.all([
    getLogsRaw(rt, rt.router, [routerLogs.topics], from, to).then((raw) => routerLogs.decode<RouterLog>(rt.router, raw)),
    getLogsRaw(rt, rt.usdc, [transferLogs.topics[0]!, null, pad(rt.router)], from, to)
      .then((raw) => transferLogs.decode<TransferLog>(rt.usdc, raw).filter((t) => isAddressEqual(t.args.to, rt.router))),
    manager ? getLogsRaw(rt, manager, [managerLogs.topics], from, to).then((raw) => managerLogs.decode<RouterLog>(manager, raw)) : Promise.resolve([]),
  ]);
  return { logs: managed.length > 0 ? [...logs, ...managed] : logs, transfers };
}

/**
 * Transfers of the token into the watched deposit addresses (topic 2 = `to`) and the forwarder events emitted by those
 * addresses (never by any other address: a look-alike event elsewhere is ignored). These transfers are not the router's,
 * so they never reach the unmatched-transfer books.
 */
async function getDepositLogs(rt: ChainRuntime, watched: readonly string[], from: bigint, to: bigint): Promise<DepositLog[]> {
  const out: DepositLog[] = [];
  for (let i = 0; i < watched.length; i += DEPOSITS_PER_REQUEST) {
    const chunk = watched.slice(i, i + DEPOSITS_PER_REQUEST) as Address[];
    const [ins, own] = await Promise.all([
      getLogsRaw(rt, rt.usdc, [transferLogs.topics[0]!, null, chunk.map((a) => pad(a))], from, to).then((raw) => transferLogs.decode<TransferLog>(rt.usdc, raw)),
      // viem's decoder: DepositReturned has a uint8 the indexer's fast decoder does not take (few logs: speed is moot).
      rt.logsClient.getLogs({ address: chunk, events: DEPOSIT_EVENTS, fromBlock: from, toBlock: to, strict: true }) as Promise<DepositLog[]>,
    ]);
    out.push(...ins, ...own);
  }
  return out;
}

/** From `logs` found in `span` blocks: the span that holds about TARGET_LOGS, growing at most ×2, within [1, MAX_RANGE]. */
export function nextRange(current: bigint, span: bigint, logs: number): bigint {
  const grown = current * 2n;
  const byDensity = logs === 0 ? grown : (span * BigInt(TARGET_LOGS)) / BigInt(logs);
  const next = byDensity < grown ? byDensity : grown;
  return next < 1n ? 1n : next > MAX_RANGE ? MAX_RANGE : next;
}

/** Router logs and USDC transfers to the router over [from, ≤ to], shrinking the span to the provider's limit. */
async function getLogsAdaptive(rt: ChainRuntime, s: RangeState, from: bigint, to: bigint, watched: readonly string[]) {
  for (;;) {
    try {
      const [base, deposits] = await Promise.all([getRange(rt, from, to), watched.length > 0 ? getDepositLogs(rt, watched, from, to) : Promise.resolve([])]);
      const read = { ...base, deposits };
      s.range = nextRange(s.range, to - from + 1n, read.logs.length + read.transfers.length);
      return { ...read, to };
    } catch (err) {
      if (!isRangeError(err) || to === from) throw err;
      s.range = (to - from + 1n) / 2n > 0n ? (to - from + 1n) / 2n : 1n;
      to = from + s.range - 1n;
    }
  }
}

/**
 * Reads [from, to] and the headers that vouch for it: every log's block hash must be the canonical hash
 * of its block as read afterwards, and block `to`'s hash becomes the cursor's (re-checked next tick).
 */
export async function readRange(rt: ChainRuntime, s: RangeState, from: bigint, wanted: bigint, watched: readonly string[] = []): Promise<RangeRead> {
  const { logs, transfers, deposits, to } = await getLogsAdaptive(rt, s, from, wanted, watched);
  const headers = new Map<bigint, Header>();
  const blocks = [...new Set([to, ...logs.map((l) => l.blockNumber), ...transfers.map((t) => t.blockNumber), ...deposits.map((d) => d.blockNumber)])];
  for (let i = 0; i < blocks.length; i += HEADER_CONCURRENCY) {
    for (const h of await Promise.all(blocks.slice(i, i + HEADER_CONCURRENCY).map((n) => header(rt, n)))) headers.set(h.number, h);
  }
  let inconsistent: RangeRead['inconsistent'] = null;
  for (const l of [...logs, ...transfers, ...deposits]) {
    const canonical = headers.get(l.blockNumber)!.hash;
    if (l.blockHash !== canonical) inconsistent ??= { blockNumber: l.blockNumber, logHash: l.blockHash, canonicalHash: canonical };
  }
  return { from, to, logs, transfers, deposits, headers, inconsistent };
}
