import { encodeEventTopics, getAddress, hexToBigInt, isAddressEqual, pad, parseAbiItem, type Address, type Hex } from 'viem';

const AUTHORIZATION_USED = parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)');
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const USED_TOPIC = encodeEventTopics({ abi: [AUTHORIZATION_USED], eventName: 'AuthorizationUsed' })[0];
const TRANSFER_TOPIC = encodeEventTopics({ abi: [TRANSFER], eventName: 'Transfer' })[0];

/** A log as a receipt carries it (viem's Log or the raw JSON-RPC shape). */
export type ReceiptLog = { address: string; topics: readonly Hex[]; data: Hex; logIndex?: number | Hex | null };

/**
 * One ERC-3009 arrival: `from`'s authorization `nonce` moved `value` of `token` into `to` in this transaction.
 * `position` is the AuthorizationUsed log's index inside the receipt's logs (the proof's logIndex; the Transfer is
 * the next); `logIndex` the Transfer's index in its block (unmatched_transfers.log_index).
 */
export type Arrival = { token: Address; from: Address; nonce: Hex; value: bigint; position: number; logIndex: number | null };

const topicAddress = (t: Hex | undefined): Address | null => (t && t.length === 66 ? (`0x${t.slice(26)}` as Address) : null);
const asIndex = (i: ReceiptLog['logIndex']): number | null => (i === null || i === undefined ? null : typeof i === 'number' ? i : Number(hexToBigInt(i)));

/**
 * The arrivals into `to` of `token` in a receipt's logs, by the rule the router checks on chain: the token's
 * `AuthorizationUsed(authorizer, nonce)` directly followed (next log of the same receipt, same token) by
 * `Transfer(authorizer → to, value)`, the pair FiatTokenV2_2 emits in one transferWithAuthorization or
 * receiveWithAuthorization call. An authorization used in the transaction for anything else (a transfer to someone
 * else, a cancel, a nonce merely appearing) is no arrival. The one rule for the x402 adoption (adopt.ts), the
 * indexer's front-run path (read-due-receipts.ts) and the proof builder (arrival-proof.ts).
 */
export function findArrivals(logs: readonly ReceiptLog[], token: Address, to: Address): Arrival[] {
  const out: Arrival[] = [];
  for (let i = 0; i + 1 < logs.length; i++) {
    const used = logs[i]!;
    const moved = logs[i + 1]!;
    if (!isAddressEqual(used.address as Address, token) || !isAddressEqual(moved.address as Address, token)) continue;
    if (used.topics.length !== 3 || used.topics[0] !== USED_TOPIC || moved.topics.length !== 3 || moved.topics[0] !== TRANSFER_TOPIC) continue;
    const authorizer = topicAddress(used.topics[1]);
    const sender = topicAddress(moved.topics[1]);
    const recipient = topicAddress(moved.topics[2]);
    if (!authorizer || !sender || !recipient || !isAddressEqual(authorizer, sender) || !isAddressEqual(recipient, to)) continue;
    if (moved.data.length !== 66) continue;
    out.push({ token, from: getAddress(authorizer), nonce: used.topics[2]!.toLowerCase() as Hex, value: hexToBigInt(moved.data), position: i, logIndex: asIndex(moved.logIndex) });
  }
  return out;
}

/** The arrival of `from`'s authorization `nonce` of exactly `value`, or null: a nonce used for anything else is not one. */
export function findArrival(logs: readonly ReceiptLog[], q: { token: Address; to: Address; from: Address; nonce: Hex; value: bigint }): Arrival | null {
  const nonce = pad(q.nonce, { size: 32 }).toLowerCase();
  return findArrivals(logs, q.token, q.to).find((a) => isAddressEqual(a.from, q.from) && a.nonce === nonce && a.value === q.value) ?? null;
}
