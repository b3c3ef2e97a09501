import type { Address } from 'viem';
import { toBytes32Id, payOrderJson, type PayOrderMessage } from '../../chain/eip712.js';
import { newId } from '../../lib/ids.js';
import type { OrdersDeps } from './deps.js';
import type { NewOrderRow } from './repo.js';
import { computeSplit } from './split.js';

/** A subscription's charge: the frozen terms the payer signed (never the platform's or merchant's rows as they are now). */
export type ChargeOrderInput = {
  platformId: string; merchantId: string; merchantExternalId: string; chainId: number; orderNo: string; amount: bigint;
  serviceFeeBps: number; platformFeeBps: number; reserveBps: number; merchantWallet: Address; platformWallet: Address;
  payer: Address; deadline: Date; metadata: Record<string, unknown>; subscriptionId: string; period: number;
};

/**
 * The order of one subscription charge: split at the signed rates (split.ts, the manager's formula) and locked to
 * the subscriber. The manager pays it through the router's payFromModule, which checks no signature; the row still
 * carries a signed PayOrder (locked to the payer) like every order, so it reads and exports as any order does.
 */
export async function prepareChargeOrder(deps: Pick<OrdersDeps, 'chains' | 'sign'>, c: ChargeOrderInput): Promise<NewOrderRow> {
  const chain = deps.chains.get(c.chainId);
  const split = computeSplit(c.amount, c.serviceFeeBps, c.platformFeeBps, c.reserveBps);
  const id = newId('ord');
  const message: PayOrderMessage = {
    orderId: toBytes32Id(id), token: chain.usdc, amount: c.amount, payer: c.payer, merchant: c.merchantWallet, platform: c.platformWallet,
    serviceFee: split.serviceFee, platformFee: split.platformFee, reserveHold: split.reserveHold,
    deadline: BigInt(Math.floor(c.deadline.getTime() / 1000)), captureDeadline: 0n,
  };
  const signature = await deps.sign(chain.chainId, chain.router, message);
  return {
    id, platform_id: c.platformId, merchant_id: c.merchantId, merchant_external_id: c.merchantExternalId, order_no: c.orderNo,
    chain_id: chain.chainId, token: 'USDC', token_address: chain.usdc, amount: c.amount,
    service_fee_bps: c.serviceFeeBps, platform_fee_bps: c.platformFeeBps, reserve_bps: c.reserveBps,
    service_fee: split.serviceFee, platform_fee: split.platformFee, merchant_gross: split.merchantGross,
    reserve_hold: split.reserveHold, merchant_available: split.merchantAvailable,
    metadata: JSON.stringify(c.metadata), state: 'pending_payment', pay_to: chain.router, onchain_id: message.orderId,
    payer_address: c.payer, merchant_wallet: c.merchantWallet, platform_wallet: c.platformWallet,
    eip712: JSON.stringify(payOrderJson(chain.chainId, chain.router, message)), signature, deadline_at: c.deadline,
    checkout_session_id: null, capture_method: 'automatic', capture_before: null, subscription_id: c.subscriptionId, subscription_period: c.period,
  };
}
