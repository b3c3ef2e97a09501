import { createMerkleProof, createMPT } from '@ethereumjs/mpt';
import { bytesToHex, concatHex, hexToBigInt, hexToBytes, isAddressEqual, keccak256, toRlp, type Address, type Hex, type PublicClient } from 'viem';
import { findArrivals } from './find-arrival.js';

/** The router's ArrivalProof: the block header (RLP), the receipt's index and its Merkle-Patricia path, the log's position. */
export type ArrivalProof = { header: Hex; txIndex: bigint; receiptProof: Hex[]; logIndex: bigint };

type Rlp = Hex | Rlp[];
type RpcLog = { address: Hex; topics: Hex[]; data: Hex };
type RpcReceipt = {
  transactionHash: Hex; transactionIndex: Hex; blockNumber: Hex; blockHash: Hex; type?: Hex; status?: Hex; root?: Hex;
  cumulativeGasUsed: Hex; logsBloom: Hex; logs: RpcLog[]; depositNonce?: Hex | null; depositReceiptVersion?: Hex | null;
};
type RpcBlock = Record<string, Hex | undefined | null> & { hash: Hex; receiptsRoot: Hex; number: Hex; transactions: Hex[] };

/** Header fields in their canonical order; the post-London ones are appended only when the node reports them. */
const HEADER_FIELDS: [string, 'bytes' | 'quantity'][] = [
  ['parentHash', 'bytes'], ['sha3Uncles', 'bytes'], ['miner', 'bytes'], ['stateRoot', 'bytes'], ['transactionsRoot', 'bytes'],
  ['receiptsRoot', 'bytes'], ['logsBloom', 'bytes'], ['difficulty', 'quantity'], ['number', 'quantity'], ['gasLimit', 'quantity'],
  ['gasUsed', 'quantity'], ['timestamp', 'quantity'], ['extraData', 'bytes'], ['mixHash', 'bytes'], ['nonce', 'bytes'],
];
const OPTIONAL_FIELDS: [string, 'bytes' | 'quantity'][] = [
  ['baseFeePerGas', 'quantity'], ['withdrawalsRoot', 'bytes'], ['blobGasUsed', 'quantity'], ['excessBlobGas', 'quantity'],
  ['parentBeaconBlockRoot', 'bytes'], ['requestsHash', 'bytes'],
];

/** An RLP integer: big-endian without leading zeros, zero as the empty string. */
const quantity = (q: Hex): Hex => {
  const n = hexToBigInt(q);
  if (n === 0n) return '0x';
  const h = n.toString(16);
  return `0x${h.length % 2 ? `0${h}` : h}`;
};

/** The block header as RLP, its keccak checked against the block hash the node reported. */
export function encodeHeader(block: RpcBlock): Hex {
  const fields: Hex[] = [];
  for (const [name, kind] of HEADER_FIELDS) {
    const v = block[name];
    if (v === undefined || v === null) throw new Error(`arrival proof: block ${block.number} has no ${name}`);
    fields.push(kind === 'quantity' ? quantity(v) : v);
  }
  let missing: string | null = null;
  for (const [name, kind] of OPTIONAL_FIELDS) {
    const v = block[name];
    if (v === undefined || v === null) { missing ??= name; continue; }
    if (missing) throw new Error(`arrival proof: block ${block.number} has ${name} but not ${missing}`);
    fields.push(kind === 'quantity' ? quantity(v) : v);
  }
  const header = toRlp(fields);
  if (keccak256(header) !== block.hash.toLowerCase()) throw new Error(`arrival proof: the header of block ${block.number} does not hash to ${block.hash} (a field this encoder does not know?)`);
  return header;
}

/** A receipt as consensus encodes it: type byte (typed) || rlp([status, cumulativeGasUsed, logsBloom, logs, …OP deposit fields]). */
export function encodeReceipt(r: RpcReceipt): Hex {
  if (r.status === undefined) throw new Error(`arrival proof: receipt ${r.transactionHash} is pre-Byzantium (state root, no status)`);
  const logs: Rlp[] = r.logs.map((l) => [l.address, l.topics, l.data]);
  const body: Rlp[] = [quantity(r.status), quantity(r.cumulativeGasUsed), r.logsBloom, logs];
  const type = r.type === undefined ? 0n : hexToBigInt(r.type);
  if (type === 0x7en) {
    if (r.depositNonce != null) body.push(quantity(r.depositNonce));
    if (r.depositReceiptVersion != null) body.push(quantity(r.depositReceiptVersion));
  }
  const rlp = toRlp(body);
  return type === 0n ? rlp : concatHex([quantity(r.type!), rlp]);
}

async function blockReceipts(client: PublicClient, block: RpcBlock): Promise<RpcReceipt[]> {
  try {
    const all = (await client.request({ method: 'eth_getBlockReceipts' as never, params: [block.number] as never })) as RpcReceipt[] | null;
    if (all) return all;
  } catch {
    // A node without eth_getBlockReceipts: one eth_getTransactionReceipt per transaction below.
  }
  return Promise.all(block.transactions.map((hash) => client.request({ method: 'eth_getTransactionReceipt', params: [hash] }) as Promise<RpcReceipt>));
}

/**
 * The proof the router's proveArrival / attributeTransfer / returnTransfer check (IPaymentRouter.ArrivalProof) that
 * `from`'s ERC-3009 authorization `nonce` moved `value` of `token` into `router` in transaction `txHash`: the block's
 * header (keccak == the block hash, checked here and on chain against blockhash), the receipt's Merkle-Patricia path
 * from the header's receiptsRoot (every receipt of the block re-encoded and the root checked here), and the position of
 * the AuthorizationUsed log inside the receipt (find-arrival.ts: the Transfer is the next log). Any mismatch is an
 * error naming it, never a guess.
 */
export async function buildArrivalProof(client: PublicClient, q: { txHash: Hex; token: Address; from: Address; nonce: Hex; router: Address }): Promise<{ proof: ArrivalProof; value: bigint; blockNumber: bigint }> {
  const receipt = (await client.request({ method: 'eth_getTransactionReceipt', params: [q.txHash] })) as RpcReceipt | null;
  if (!receipt) throw new Error(`arrival proof: no receipt for ${q.txHash}`);
  const arrival = findArrivals(receipt.logs, q.token, q.router).find((a) => isAddressEqual(a.from, q.from) && a.nonce === q.nonce.toLowerCase());
  if (!arrival) throw new Error(`arrival proof: ${q.txHash} holds no AuthorizationUsed(${q.from}, ${q.nonce}) followed by its Transfer to ${q.router}`);
  const block = (await client.request({ method: 'eth_getBlockByNumber', params: [receipt.blockNumber, false] })) as unknown as RpcBlock | null;
  if (!block || block.hash.toLowerCase() !== receipt.blockHash.toLowerCase()) throw new Error(`arrival proof: block ${receipt.blockNumber} is no longer ${receipt.blockHash} (reorg)`);
  const header = encodeHeader(block);
  const receipts = await blockReceipts(client, block);
  const trie = await createMPT();
  for (const r of receipts) await trie.put(hexToBytes(toRlp(quantity(r.transactionIndex))), hexToBytes(encodeReceipt(r)));
  if (bytesToHex(trie.root()) !== block.receiptsRoot.toLowerCase()) throw new Error(`arrival proof: the ${receipts.length} receipts of block ${block.number} do not make its receiptsRoot`);
  const key = hexToBytes(toRlp(quantity(receipt.transactionIndex)));
  const nodes = await createMerkleProof(trie, key);
  return {
    proof: { header, txIndex: hexToBigInt(receipt.transactionIndex), receiptProof: nodes.map((n) => bytesToHex(n)), logIndex: BigInt(arrival.position) },
    value: arrival.value,
    blockNumber: hexToBigInt(receipt.blockNumber),
  };
}
