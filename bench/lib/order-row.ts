import { zeroAddress, type Address, type Hex, type LocalAccount } from 'viem';
import { createPayOrderSigner, payOrderJson, toBytes32Id, type PayOrderMessage } from '../../src/chain/eip712.js';
import type { Services } from '../../src/services.js';
import { computeSplit } from '../../src/modules/orders/split.js';

export type OrderContext = {
  platform: Awaited<ReturnType<Services['platforms']['get']>>;
  merchant: NonNullable<Awaited<ReturnType<Services['merchants']['findByExternalId']>>>;
  chainId: number;
  router: Address;
  usdc: Address;
  serviceFeeBps: number;
};

export type PaySigner = (msg: PayOrderMessage) => Promise<Hex>;

/** The cheapest correct way to sign a PayOrder in this code base, the service's own (used by the limit route). */
export function benchSigner(account: LocalAccount, chainId: number, router: Address): PaySigner {
  const sign = createPayOrderSigner(account);
  return (msg) => sign(chainId, router, msg);
}

/** A full order row as the service stores it (split, signed message, typed-data JSON), without any read. */
export async function benchOrderRow(ctx: OrderContext, id: string, sign: PaySigner, amount = 25_000_000n) {
  const split = computeSplit(amount, ctx.serviceFeeBps, ctx.platform.platform_fee_bps, ctx.merchant.reserve_bps);
  const deadline = new Date(Date.now() + 3_600_000);
  const message: PayOrderMessage = {
    orderId: toBytes32Id(id), token: ctx.usdc, amount, payer: zeroAddress,
    merchant: ctx.merchant.merchant_wallet as Address, platform: ctx.platform.platform_wallet as Address,
    serviceFee: split.serviceFee, platformFee: split.platformFee, reserveHold: split.reserveHold,
    deadline: BigInt(Math.floor(deadline.getTime() / 1000)), captureDeadline: 0n,
  };
  const signature = await sign(message);
  return {
    id, platform_id: ctx.platform.id, merchant_id: ctx.merchant.id, merchant_external_id: ctx.merchant.external_id,
    order_no: id, chain_id: ctx.chainId, token: 'USDC', token_address: ctx.usdc, amount,
    service_fee_bps: ctx.serviceFeeBps, platform_fee_bps: ctx.platform.platform_fee_bps, reserve_bps: ctx.merchant.reserve_bps,
    service_fee: split.serviceFee, platform_fee: split.platformFee, merchant_gross: split.merchantGross,
    reserve_hold: split.reserveHold, merchant_available: split.merchantAvailable,
    metadata: '{}', state: 'pending_payment' as const, pay_to: ctx.router, onchain_id: message.orderId, payer_address: null,
    merchant_wallet: ctx.merchant.merchant_wallet, platform_wallet: ctx.platform.platform_wallet,
    eip712: JSON.stringify(payOrderJson(ctx.chainId, ctx.router, message)), signature, deadline_at: deadline, checkout_session_id: null,
  };
}
