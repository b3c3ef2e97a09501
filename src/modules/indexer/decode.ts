import { formatLog, getAddress, toEventSelector, type AbiEvent, type Address, type Hex, type RpcLog } from 'viem';

/**
 * Event logs decoded through a table built once per event set (selector → the event's indexed and data
 * parameters) instead of viem's parseEventLogs, which for every log formats and hashes the signature of each
 * candidate event and builds a byte cursor per parameter: on a backlog that was most of the indexer's CPU
 * (docs/performance.md). The events read here carry only three static types (address, bytes32, uint256), one
 * 32-byte word each, decoded as viem decodes them (checksummed address, lowercase hex, bigint); other types
 * are refused when the table is built. The rules are getLogs' strict ones: a log whose topics or data do not
 * fit its event is left out (also one with a topic more than its event has indexed parameters, which viem
 * ignores), and so is one from another address (a provider's answer is not trusted to have applied the filter).
 * test/unit/log-decoder.test.ts holds it equal to viem's parseEventLogs.
 */
type Word = (word: string) => unknown;
const WORDS: Record<string, Word> = {
  address: (w) => getAddress(`0x${w.slice(24)}`),
  bytes32: (w) => `0x${w.toLowerCase()}`,
  uint256: (w) => BigInt(`0x${w}`),
};
type Param = { name: string; word: Word };
type Entry = { name: string; indexed: Param[]; data: Param[] };

export type LogDecoder = { topics: Hex[]; decode: <L>(address: Address, raw: RpcLog[]) => L[] };

const HEX = /^0x[0-9a-fA-F]*$/;

export function logDecoder(events: readonly AbiEvent[]): LogDecoder {
  const table = new Map<string, Entry>();
  for (const event of events) {
    const param = (p: AbiEvent['inputs'][number]): Param => {
      const word = WORDS[p.type];
      if (!word || !p.name) throw new Error(`logDecoder: ${event.name}.${p.name ?? '?'} is ${p.type} (only named address, bytes32, uint256)`);
      return { name: p.name, word };
    };
    table.set(toEventSelector(event), { name: event.name, indexed: event.inputs.filter((p) => p.indexed).map(param), data: event.inputs.filter((p) => !p.indexed).map(param) });
  }
  const argsOf = (e: Entry, r: RpcLog): Record<string, unknown> | null => {
    if (r.topics.length !== e.indexed.length + 1 || !HEX.test(r.data) || r.data.length < 2 + 64 * e.data.length) return null;
    const args: Record<string, unknown> = {};
    for (let i = 0; i < e.indexed.length; i++) {
      const t = r.topics[i + 1]!;
      if (t.length !== 66 || !HEX.test(t)) return null;
      args[e.indexed[i]!.name] = e.indexed[i]!.word(t.slice(2));
    }
    for (let i = 0; i < e.data.length; i++) args[e.data[i]!.name] = e.data[i]!.word(r.data.slice(2 + 64 * i, 66 + 64 * i));
    return args;
  };
  return {
    topics: [...table.keys()] as Hex[],
    decode<L>(address: Address, raw: RpcLog[]): L[] {
      const out: L[] = [];
      const want = address.toLowerCase();
      for (const r of raw) {
        const e = table.get(r.topics[0] ?? '');
        if (!e || r.address?.toLowerCase() !== want) continue;
        const args = argsOf(e, r);
        if (args) out.push({ ...formatLog(r), args, eventName: e.name } as L);
      }
      return out;
    },
  };
}
