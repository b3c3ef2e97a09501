import { sql } from 'kysely';
import type { Hex } from 'viem';
import { refundOrderFromJson } from '../../src/chain/eip712.js';
import type { Harness } from '../helpers/harness.js';

/**
 * Drives balances the way the indexer does, without a chain: OrderPaid, Refunded, ReserveReleased(Failed) and
 * BatchSettled go through the same hooks the indexer calls, with block times chosen by the test, and each
 * applied log gets its chain_logs row (event key, log index) like the indexer writes.
 */
export const BUYER = '0x976EA74026E726554dB657fA54763abd0C3a0aa9' as const;
const HOLD_S = 7 * 86_400;
let logIndex = 0;
let txSeq = 0;
const txHash = () => `0x${(++txSeq).toString(16).padStart(64, '0')}` as Hex;

async function logRow(h: Harness, key: string, name: string, onchainId: string, hash: Hex) {
  await sql`insert into chain_logs (chain_id, tx_hash, log_index, block_number, block_hash, event_name, onchain_id, event_key)
    values (84532, ${hash}, ${++logIndex}, 1, ${'0x' + '00'.repeat(32)}, ${name}, ${onchainId}, ${key})`.execute(h.db);
}

export async function pay(h: Harness, o: { eip712: { message: Record<string, string> } }, blockTime: Date) {
  const m = o.eip712.message;
  const hash = txHash();
  await h.db.transaction().execute((tx) => h.services.orders.applyPaid(tx, {
    chainId: 84532, orderId: m.orderId as Hex, payer: BUYER, merchant: m.merchant as Hex, token: m.token as Hex, amount: BigInt(m.amount!),
    serviceFee: BigInt(m.serviceFee!), platformFee: BigInt(m.platformFee!), reserveHold: BigInt(m.reserveHold!), platform: m.platform as Hex,
    releaseAfter: BigInt(Math.floor(blockTime.getTime() / 1000) + HOLD_S), txHash: hash, blockNumber: 1n, blockTime,
  }));
  await logRow(h, `OrderPaid:${m.orderId!.toLowerCase()}`, 'OrderPaid', m.orderId!, hash);
  return hash;
}

export async function completeRefund(h: Harness, r: { eip712: unknown }, fromReserve: bigint, blockTime: Date) {
  const msg = refundOrderFromJson(r.eip712 as never);
  const hash = txHash();
  await h.db.transaction().execute((tx) => h.services.refunds.applyRefunded(tx, {
    chainId: 84532, orderOnchainId: msg.orderId, refundOnchainId: msg.refundId, to: msg.to, amount: msg.amount,
    fromReserve, fromSubmitter: msg.amount - fromReserve, txHash: hash, blockTime,
  }));
  await logRow(h, `Refunded:${msg.refundId.toLowerCase()}`, 'Refunded', msg.refundId, hash);
}

let batchSeq = 0;
/** A settlement batch over `items` as the worker would have built it, then its logs: released or refused per order. */
export async function settle(h: Harness, platformId: string, items: { orderId: string; amount: bigint; released: boolean }[], blockTime: Date) {
  const id = `stl_${String(++batchSeq).padStart(20, '0')}`;
  const onchain = `0x${batchSeq.toString(16).padStart(64, 'a')}` as Hex;
  const hash = txHash();
  await sql`insert into settlements (id, chain_id, onchain_id, state, order_count, total) values (${id}, 84532, ${onchain}, 'submitted', ${items.length}, 0)`.execute(h.db);
  for (const i of items) {
    await sql`insert into settlement_items (settlement_id, order_id, platform_id, amount, state) values (${id}, ${i.orderId}, ${platformId}, ${i.amount}, 'included')`.execute(h.db);
  }
  let total = 0n;
  const keys: [string, string][] = [];
  await h.db.transaction().execute(async (tx) => {
    for (const i of items) {
      const o = await tx.selectFrom('orders').select(['onchain_id', 'merchant_wallet']).where('id', '=', i.orderId).executeTakeFirstOrThrow();
      const e = { chainId: 84532, orderOnchainId: o.onchain_id as Hex, batchOnchainId: onchain, merchant: o.merchant_wallet as Hex, amount: i.amount, txHash: hash };
      if (i.released) total += i.amount;
      await (i.released ? h.services.settlements.applyReserveReleased(tx, e) : h.services.settlements.applyReserveReleaseFailed(tx, e));
      keys.push([`${i.released ? 'ReserveReleased' : 'ReserveReleaseFailed'}:${onchain.toLowerCase()}:${o.onchain_id.toLowerCase()}`, o.onchain_id]);
    }
    await h.services.settlements.applyBatchSettled(tx, { chainId: 84532, batchOnchainId: onchain, orderCount: BigInt(items.filter((i) => i.released).length), totalReleased: total, txHash: hash, blockTime });
  });
  for (const [key, orderOnchainId] of keys) await logRow(h, key, key.split(':')[0]!, orderOnchainId, hash);
  return { id, onchain, hash };
}

/** The indexer's cursor: its block time is the chain time balances decide releasability on. */
export async function setChainTime(h: Harness, t: Date) {
  await sql`insert into chain_cursors (chain_id, last_block, last_block_time) values (84532, 1, ${t})
    on conflict (chain_id) do update set last_block_time = excluded.last_block_time`.execute(h.db);
}
