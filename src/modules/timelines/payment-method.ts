import { sql } from 'kysely';
import { decodeFunctionData, type Hex, type PublicClient } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import type { Executor } from '../../db/client.js';
import type { PaymentMethod } from '../../lib/payment-methods.js';
import type { OrderRow } from '../orders/repo.js';


/** The router's entry point → how the buyer paid. payOrderWithTransfer is the x402 entry (added with x402). */
const BY_ENTRY: Record<string, PaymentMethod> = {
  payOrder: 'approve_and_pay',
  payOrderWithPermit: 'permit',
  payOrderWithAuthorization: 'gasless',
  payOrderWithTransfer: 'x402',
  attributeTransfer: 'x402',
};

const MAX_CACHED = 10_000;

/**
 * How an order's payment entered the router, from what is recorded (capture_method manual: an authorization; paid by
 * its deposit address: deposit; a
 * subscription's charge: subscription; a succeeded relay: x402 when x402 sent it, else gasless) or else from the paying transaction itself: sent to the router, its function
 * selector names the entry point; sent to another contract (a wallet executing an EIP-5792 batch of approve +
 * payOrder), it was batched. Null before payment, or when the node no longer has the transaction. A paid
 * order's answer never changes, so it is kept in memory (bounded).
 */
export function createPaymentMethods(opts: { clientOf(chainId: number): PublicClient | null }) {
  const cache = new Map<string, PaymentMethod | null>();

  async function fromTransaction(order: OrderRow): Promise<PaymentMethod | null> {
    const client = opts.clientOf(order.chain_id);
    if (!client || !order.tx_hash) return null;
    const tx = await client.getTransaction({ hash: order.tx_hash as Hex }).catch(() => null);
    if (!tx) return null;
    if (!tx.to || tx.to.toLowerCase() !== order.pay_to.toLowerCase()) return 'batched';
    try {
      return BY_ENTRY[decodeFunctionData({ abi: paymentRouterAbi, data: tx.input }).functionName] ?? null;
    } catch {
      // An entry point this build's ABI does not know: the x402 entry is the one added beside these.
      return tx.input.length >= 10 ? 'x402' : null;
    }
  }

  return async function paymentMethodOf(db: Executor, order: OrderRow): Promise<PaymentMethod | null> {
    if (!order.tx_hash || !order.paid_by) return null;
    if (cache.has(order.id)) return cache.get(order.id)!;
    let method: PaymentMethod | null;
    if (order.capture_method === 'manual') method = 'authorization';
    else if (order.deposit_address && order.paid_by.toLowerCase() === order.deposit_address.toLowerCase()) method = 'deposit';
    else if (order.subscription_id) method = 'subscription';
    else {
      const relay = await sql<{ via: string }>`select via from relays where order_id = ${order.id} and state = 'succeeded' limit 1`.execute(db);
      const via = relay.rows[0]?.via;
      method = via === undefined ? await fromTransaction(order) : via === 'x402' ? 'x402' : 'gasless';
    }
    if (method !== null) {
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
      cache.set(order.id, method);
    }
    return method;
  };
}
