import { sql } from 'kysely';
import type { Hex } from 'viem';
import { computeSplit } from '../../src/modules/orders/split.js';
import type { Harness } from './harness.js';

/**
 * Drives charge later the way the indexer does, without a chain: OrderAuthorized, OrderCaptured + OrderPaid (one
 * transaction, as the router emits them), AuthorizationVoided / AuthorizationReclaimed, through the same handler
 * table the indexer calls, each with its chain_logs row (event key) like the indexer writes.
 */
export const PAYER = '0x976EA74026E726554dB657fA54763abd0C3a0aa9' as const;
type ApiOrder = { id: string; eip712: { message: Record<string, string> } };
let seq = 0;
const nextTx = () => `0x${(0xa0000 + ++seq).toString(16).padStart(64, '0')}` as Hex;

async function logRow(h: Harness, event: string, onchainId: string, hash: Hex) {
  await sql`insert into chain_logs (chain_id, tx_hash, log_index, block_number, block_hash, event_name, onchain_id, event_key)
    values (84532, ${hash}, ${++seq}, 1, ${'0x' + '00'.repeat(32)}, ${event}, ${onchainId}, ${`${event}:${onchainId.toLowerCase()}`})`.execute(h.db);
}

export async function authorize(h: Harness, o: ApiOrder, at = new Date(), payer: Hex = PAYER): Promise<Hex> {
  const m = o.eip712.message;
  const txHash = nextTx();
  await h.db.transaction().execute((tx) => h.services.chainEvents.OrderAuthorized(tx, {
    chainId: 84532, orderId: m.orderId as Hex, payer, merchant: m.merchant as Hex, token: m.token as Hex, amount: BigInt(m.amount!),
    platform: m.platform as Hex, captureDeadline: BigInt(m.captureDeadline!), txHash, blockNumber: 1n, blockTime: at,
  }));
  await logRow(h, 'OrderAuthorized', m.orderId!, txHash);
  return txHash;
}

/** The router's capture: OrderCaptured then OrderPaid (the split of `captured` at the order's rates) in one transaction. */
export async function captureOnChain(h: Harness, o: ApiOrder, captured: bigint, at = new Date(), payer: Hex = PAYER, holdSeconds = 7 * 86_400) {
  const m = o.eip712.message;
  const row = await h.db.selectFrom('orders').selectAll().where('id', '=', o.id).executeTakeFirstOrThrow();
  const s = computeSplit(captured, row.service_fee_bps, row.platform_fee_bps, row.reserve_bps);
  const txHash = nextTx();
  const authorized = BigInt(m.amount!);
  await h.db.transaction().execute(async (tx) => {
    await h.services.chainEvents.OrderCaptured(tx, { chainId: 84532, orderId: m.orderId as Hex, authorized, captured, returned: authorized - captured, txHash, blockTime: at });
    await h.services.chainEvents.OrderPaid(tx, [{
      chainId: 84532, orderId: m.orderId as Hex, payer, merchant: m.merchant as Hex, token: m.token as Hex, amount: captured,
      serviceFee: s.serviceFee, platformFee: s.platformFee, reserveHold: s.reserveHold, platform: m.platform as Hex,
      releaseAfter: BigInt(Math.floor(at.getTime() / 1000) + holdSeconds), txHash, blockNumber: 2n, blockTime: at,
    }]);
  });
  await logRow(h, 'OrderCaptured', m.orderId!, txHash);
  await logRow(h, 'OrderPaid', m.orderId!, txHash);
  return { txHash, split: s };
}

export async function endAuthorization(h: Harness, o: ApiOrder, by: 'void' | 'reclaim', at = new Date(), payer: Hex = PAYER) {
  const m = o.eip712.message;
  const txHash = nextTx();
  const event = by === 'void' ? 'AuthorizationVoided' : 'AuthorizationReclaimed';
  await h.db.transaction().execute((tx) => h.services.chainEvents[event](tx, {
    chainId: 84532, orderId: m.orderId as Hex, payer, amount: BigInt(m.amount!), by, txHash, blockTime: at,
  }));
  await logRow(h, event, m.orderId!, txHash);
  return txHash;
}
