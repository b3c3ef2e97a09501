/**
 * A JSON-RPC node serving a synthetic chain for the indexer's memory measurement (bench/parts/indexer.ts,
 * BENCH_INDEXER_MEMORY_LOGS): FAKE_BLOCKS blocks of FAKE_PER_BLOCK OrderPaid logs each from FAKE_ROUTER, no USDC
 * transfers. Logs are real ABI encodings (viem decodes them as it does anvil's), each with its own order id and
 * transaction, and block hashes consistent between eth_getLogs and eth_getBlockByNumber, so the indexer runs its
 * whole path (read, header checks, keying, batching, chain_logs) unchanged. Its own process: its memory is not
 * the indexer's.
 */
import http from 'node:http';
import { encodeAbiParameters, encodeEventTopics, getAbiItem, type Hex } from 'viem';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';

const BLOCKS = BigInt(process.env.FAKE_BLOCKS ?? '1000');
const PER_BLOCK = Number(process.env.FAKE_PER_BLOCK ?? '1000');
const ROUTER = (process.env.FAKE_ROUTER ?? '').toLowerCase();
const CHAIN_ID = Number(process.env.FAKE_CHAIN_ID ?? '84532');
const GENESIS_TIME = 1_760_000_000;
const ADDR = '0x00000000000000000000000000000000000000aa';

const hex32 = (n: bigint, tag: number) => `0x${tag.toString(16)}${n.toString(16).padStart(63, '0')}` as Hex;
const blockHash = (n: bigint) => hex32(n, 0xb);
const head = BLOCKS + 2n; // two empty blocks on top: the last log block reaches confirmation depth
const event = getAbiItem({ abi: paymentRouterAbi, name: 'OrderPaid' });
const data = encodeAbiParameters(
  [{ type: 'address' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'address' }, { type: 'uint256' }],
  [ADDR, 1_000_000n, 10_000n, 50_000n, 94_000n, ADDR, BigInt(GENESIS_TIME + 86_400)],
);
const [topic0, , payer, merchant] = encodeEventTopics({ abi: [event], eventName: 'OrderPaid', args: { orderId: `0x${'00'.repeat(32)}`, payer: ADDR, merchant: ADDR } }) as Hex[];

function logsOf(from: bigint, to: bigint) {
  const out: unknown[] = [];
  for (let b = from < 1n ? 1n : from; b <= to && b <= BLOCKS; b++) {
    for (let i = 0; i < PER_BLOCK; i++) {
      const id = (b - 1n) * BigInt(PER_BLOCK) + BigInt(i);
      out.push({
        address: ROUTER, topics: [topic0, hex32(id, 0xa), payer, merchant], data, blockNumber: `0x${b.toString(16)}`, blockHash: blockHash(b),
        transactionHash: hex32(id, 0xc), transactionIndex: `0x${i.toString(16)}`, logIndex: `0x${i.toString(16)}`, removed: false,
      });
    }
  }
  return out;
}

const block = (n: bigint) => n > head ? null : ({
  number: `0x${n.toString(16)}`, hash: blockHash(n), parentHash: n === 0n ? `0x${'00'.repeat(32)}` : blockHash(n - 1n),
  timestamp: `0x${(GENESIS_TIME + Number(n)).toString(16)}`, gasLimit: '0x1c9c380', gasUsed: '0x0', baseFeePerGas: '0x1', miner: ADDR,
  difficulty: '0x0', nonce: '0x0000000000000000', size: '0x200', extraData: '0x', logsBloom: `0x${'00'.repeat(256)}`, transactions: [], uncles: [],
});

function answer(method: string, params: any[]): unknown {
  switch (method) {
    case 'eth_chainId': return `0x${CHAIN_ID.toString(16)}`;
    case 'eth_blockNumber': return `0x${head.toString(16)}`;
    case 'eth_getBlockByNumber': return block(params[0] === 'latest' ? head : BigInt(params[0]));
    case 'eth_getLogs': {
      const f = params[0];
      if (String(f.address).toLowerCase() !== ROUTER) return [];
      return logsOf(BigInt(f.fromBlock), BigInt(f.toBlock));
    }
    default: throw new Error(`fake rpc: ${method} not served`);
  }
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const one = (r: any) => {
      try { return { jsonrpc: '2.0', id: r.id, result: answer(r.method, r.params ?? []) }; } catch (err) { return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: (err as Error).message } }; }
    };
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(Array.isArray(body) ? body.map(one) : one(body)));
  });
});
server.listen(0, '127.0.0.1', () => process.send!({ ready: true, port: (server.address() as { port: number }).port }));
process.on('disconnect', () => process.exit(0));
