import { parseEventLogs, zeroAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { signPayOrder, signRefundOrder, toBytes32Id, type PayOrderMessage } from '../../src/chain/eip712.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let chain: TestChain;
const merchant = privateKeyToAccount(generatePrivateKey()).address;
const platformWallet = privateKeyToAccount(generatePrivateKey());
let nextId = 0;

beforeAll(async () => {
  chain = await startTestChain();
  await chain.confirm(
    await chain.walletClientFor(chain.buyers[0]!).writeContract({
      address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, 2n ** 256n - 1n],
    }),
  );
  // The platform funds refunds the reserve cannot cover: it needs USDC and gas.
  await chain.anvil.setBalance({ address: platformWallet.address, value: 10n ** 20n });
  await chain.confirm(
    await chain.walletClientFor(chain.owner).writeContract({
      address: chain.usdc, abi: circleUsdcAbi, functionName: 'mint', args: [platformWallet.address, 1_000n * 10n ** 6n],
    }),
  );
});
afterAll(async () => {
  await chain?.stop();
});

const balanceOf = (who: Address) =>
  chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [who] });
const orderOf = (orderId: `0x${string}`) =>
  chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'orders', args: [orderId] });
const deadline = () => BigInt(Math.floor(Date.now() / 1000) + 3600);


/** Pays a 100 USDC order with a 10 USDC reserve from buyer 0. */
async function paidOrder(): Promise<PayOrderMessage> {
  const msg: PayOrderMessage = {
    orderId: toBytes32Id(`ord_refund_${nextId++}`),
    token: chain.usdc,
    amount: 100_000_000n,
    payer: zeroAddress,
    merchant,
    platform: platformWallet.address,
    serviceFee: 1_000_000n,
    platformFee: 5_000_000n,
    reserveHold: 10_000_000n,
    deadline: deadline(),
    captureDeadline: 0n,
  };
  const buyer = chain.walletClientFor(chain.buyers[0]!);
  const signature = await signPayOrder(chain.signer, chain.chainId, chain.router, msg);
  await chain.confirm(await buyer.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [msg, signature] }));
  return msg;
}

describe('refunds', () => {
  it('a refund the reserve covers is submitted by the operator with no allowance', async () => {
    const order = await paidOrder();
    const refund = { orderId: order.orderId, refundId: toBytes32Id('re_reserve'), to: chain.buyers[0]!.address, amount: 4_000_000n, deadline: deadline() };
    const signature = await signRefundOrder(chain.signer, chain.chainId, chain.router, refund);
    const before = await balanceOf(refund.to);
    const receipt = await chain.confirm(
      await chain.walletClientFor(chain.operator).writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'refund', args: [refund, signature] }),
    );
    expect((await balanceOf(refund.to)) - before).toBe(4_000_000n);
    const [ev] = parseEventLogs({ abi: paymentRouterAbi, eventName: 'Refunded', logs: receipt.logs });
    expect(ev?.args).toEqual({
      orderId: refund.orderId,
      refundId: refund.refundId,
      to: refund.to,
      amount: 4_000_000n,
      fromReserve: 4_000_000n,
      fromSubmitter: 0n,
    });
    expect(await orderOf(order.orderId)).toMatchObject({ reserve: 6_000_000n, refunded: 4_000_000n });
  });

  it('a refund larger than the reserve pulls the rest from the platform wallet that submits it', async () => {
    const order = await paidOrder();
    const refund = { orderId: order.orderId, refundId: toBytes32Id('re_funded'), to: chain.buyers[0]!.address, amount: 100_000_000n, deadline: deadline() };
    const signature = await signRefundOrder(chain.signer, chain.chainId, chain.router, refund);
    const platform = chain.walletClientFor(platformWallet);
    await chain.confirm(await platform.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, 90_000_000n] }));
    const platformBefore = await balanceOf(platformWallet.address);
    const buyerBefore = await balanceOf(refund.to);
    const receipt = await chain.confirm(
      await platform.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'refund', args: [refund, signature] }),
    );
    expect(platformBefore - (await balanceOf(platformWallet.address))).toBe(90_000_000n);
    expect((await balanceOf(refund.to)) - buyerBefore).toBe(100_000_000n);
    const [ev] = parseEventLogs({ abi: paymentRouterAbi, eventName: 'Refunded', logs: receipt.logs });
    expect(ev?.args).toMatchObject({ fromReserve: 10_000_000n, fromSubmitter: 90_000_000n });
    expect(await orderOf(order.orderId)).toMatchObject({ reserve: 0n, refunded: 100_000_000n });
  });
});

describe('settlement', () => {
  it('settleBatch releases each remaining reserve to its merchant and reports the batch', async () => {
    const a = await paidOrder();
    const b = await paidOrder();
    const routerBefore = await balanceOf(chain.router);
    const merchantBefore = await balanceOf(merchant);
    const batchId = toBytes32Id('stl_test_1');
    // The router holds each reserve for its per-order hold (7 days by default) from payment: before it, nothing moves.
    await chain.increaseTime(7 * 86_400 + 1);
    const receipt = await chain.confirm(
      await chain.walletClientFor(chain.operator).writeContract({
        address: chain.router, abi: paymentRouterAbi, functionName: 'settleBatch', args: [batchId, [a.orderId, b.orderId]],
      }),
    );
    expect((await balanceOf(merchant)) - merchantBefore).toBe(20_000_000n);
    expect(routerBefore - (await balanceOf(chain.router))).toBe(20_000_000n);
    const released = parseEventLogs({ abi: paymentRouterAbi, eventName: 'ReserveReleased', logs: receipt.logs });
    expect(released.map((l) => l.args)).toEqual([
      { orderId: a.orderId, batchId, merchant, amount: 10_000_000n },
      { orderId: b.orderId, batchId, merchant, amount: 10_000_000n },
    ]);
    const [settled] = parseEventLogs({ abi: paymentRouterAbi, eventName: 'BatchSettled', logs: receipt.logs });
    expect(settled?.args).toEqual({ batchId, orderCount: 2n, totalReleased: 20_000_000n });
    expect(await orderOf(a.orderId)).toMatchObject({ reserve: 0n });
  });
});
