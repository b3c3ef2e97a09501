/**
 * The indexer's table decoder (indexer/decode.ts) gives what viem's strict parseEventLogs gives, log for log:
 * every router event and the token's Transfer with random values (addresses in every case, amounts up to
 * 2^256 - 1), and the malformed logs strict decoding leaves out (a topic missing or extra, data short or not
 * hex, another event's selector). Logs from another address are left out too (viem does not look at it), and
 * so is a log with a topic more than its event has indexed parameters (viem ignores the extra one).
 */
import { encodeAbiParameters, encodeEventTopics, getAddress, maxUint256, numberToHex, parseEventLogs, type AbiEvent, type Address, type Hex, type RpcLog } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { logDecoder } from '../../src/modules/indexer/decode.js';
import { INDEXED_EVENTS, TRANSFER_EVENT } from '../../src/modules/indexer/events.js';

const ROUTER = privateKeyToAddress(generatePrivateKey());
const OTHER = privateKeyToAddress(generatePrivateKey());
let seed = 7n;
const rand = (bits: bigint) => {
  seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
  let v = seed;
  for (let i = 64n; i < bits; i += 64n) v = (v << 64n) | ((seed = (seed * 6364136223846793005n + 1n) % 2n ** 64n));
  return v % 2n ** bits;
};
const valueOf = (type: string): unknown => {
  if (type === 'address') return numberToHex(rand(160n), { size: 20 });
  if (type === 'bytes32') return numberToHex(rand(256n), { size: 32 });
  const edge = rand(3n);
  return edge === 0n ? 0n : edge === 1n ? maxUint256 : rand(8n * (1n + rand(5n)));
};

let index = 0;
function rawLog(event: AbiEvent, address: Address, edit?: (l: RpcLog) => void): RpcLog {
  const args = Object.fromEntries(event.inputs.map((p) => [p.name!, valueOf(p.type)]));
  const topics = encodeEventTopics({ abi: [event], eventName: event.name, args } as never) as Hex[];
  const dataInputs = event.inputs.filter((p) => !p.indexed);
  const data = encodeAbiParameters(dataInputs, dataInputs.map((p) => args[p.name!]));
  const i = index++;
  const log = {
    address, topics, data, blockNumber: numberToHex(100 + (i >> 3)), blockHash: numberToHex(rand(256n), { size: 32 }), logIndex: numberToHex(i),
    transactionHash: numberToHex(rand(256n), { size: 32 }), transactionIndex: numberToHex(i & 7), removed: false,
  } as unknown as RpcLog;
  edit?.(log);
  return log;
}

function compare(events: readonly AbiEvent[], raw: RpcLog[]) {
  const ours = logDecoder(events).decode(ROUTER, raw);
  const viems = parseEventLogs({ abi: events as AbiEvent[], logs: raw, strict: true }).filter((l) => l.address.toLowerCase() === ROUTER.toLowerCase());
  expect(ours).toEqual(viems);
  return ours;
}

describe('logDecoder', () => {
  it('decodes every router event as viem does', () => {
    const raw = INDEXED_EVENTS.flatMap((e) => Array.from({ length: 25 }, () => rawLog(e, ROUTER)));
    const out = compare(INDEXED_EVENTS, raw);
    expect(out).toHaveLength(raw.length);
    expect(new Set(out.map((l) => (l as { eventName: string }).eventName))).toEqual(new Set(INDEXED_EVENTS.map((e) => e.name)));
  });

  it('decodes Transfer as viem does, with checksummed addresses', () => {
    const out = compare([TRANSFER_EVENT], Array.from({ length: 40 }, () => rawLog(TRANSFER_EVENT, ROUTER)));
    expect(out).toHaveLength(40);
    for (const l of out as { args: { from: string } }[]) expect(l.args.from).toBe(getAddress(l.args.from));
  });

  it('leaves out what strict decoding leaves out, and logs of another address', () => {
    const [paid, cancelled] = [INDEXED_EVENTS[0], INDEXED_EVENTS[5]] as AbiEvent[];
    const bad = [
      rawLog(paid!, ROUTER, (l) => { l.topics = l.topics.slice(0, 3) as never; }), // an indexed topic missing
      rawLog(paid!, ROUTER, (l) => { l.data = l.data.slice(0, -2) as Hex; }), // data one byte short
      rawLog(paid!, ROUTER, (l) => { l.data = '0x' as Hex; }),
      rawLog(paid!, ROUTER, (l) => { l.topics = [encodeEventTopics({ abi: [TRANSFER_EVENT], eventName: 'Transfer' })[0]!, ...l.topics.slice(1)] as never; }),
    ];
    const good = [rawLog(paid!, ROUTER), rawLog(cancelled!, ROUTER)];
    const foreign = rawLog(paid!, OTHER);
    const out = compare(INDEXED_EVENTS, [bad[0]!, good[0]!, ...bad.slice(1), foreign, good[1]!]);
    expect(out.map((l) => (l as { logIndex: number }).logIndex)).toEqual(good.map((g) => Number(g.logIndex)));
    expect(logDecoder(INDEXED_EVENTS).decode(ROUTER, [rawLog(paid!, ROUTER, (l) => { l.data = `0x${'zz'.repeat(l.data.length / 2 - 1)}` as Hex; })])).toEqual([]);
    // Stricter than viem in one way: a topic more than the event has indexed parameters (viem ignores it; the router cannot emit it).
    const extraTopic = rawLog(cancelled!, ROUTER, (l) => { l.topics = [...l.topics, l.topics[1]!] as never; });
    expect(parseEventLogs({ abi: INDEXED_EVENTS as unknown as AbiEvent[], logs: [extraTopic], strict: true })).toHaveLength(1);
    expect(logDecoder(INDEXED_EVENTS).decode(ROUTER, [extraTopic])).toEqual([]);
  });

  it('refuses an event with a type it does not decode', () => {
    const dynamic = { type: 'event', name: 'Note', inputs: [{ name: 'text', type: 'string', indexed: false }] } as const satisfies AbiEvent;
    expect(() => logDecoder([dynamic])).toThrow(/Note\.text is string/);
  });
});
