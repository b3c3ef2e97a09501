import { parseEventLogs, parseSignature, zeroAddress, type Address, type LocalAccount } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { signPayOrder, toBytes32Id, type PayOrderMessage } from '../../src/chain/eip712.js';
import { revertOf, startTestChain, type TestChain } from '../helpers/chain.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let chain: TestChain;
const merchant = privateKeyToAccount(generatePrivateKey()).address;
const platform = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  await chain?.stop();
});

const balanceOf = (who: Address) =>
  chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [who] });

async function balances() {
  const who = { treasury: chain.treasury, platform, merchant, router: chain.router };
  const entries = await Promise.all(Object.entries(who).map(async ([k, a]) => [k, await balanceOf(a)] as const));
  return Object.fromEntries(entries) as Record<keyof typeof who, bigint>;
}


/** The API's split for 123.456789 USDC at 1% service, 2.5% platform, 10% reserve; deadline an hour after the chain's latest block. */
async function splitOrder(payer: Address = zeroAddress): Promise<PayOrderMessage> {
  const latest = await chain.publicClient.getBlock({ blockTag: 'latest' });
  const amount = 123_456_789n;
  const serviceFee = (amount * 100n) / 10_000n;
  const platformFee = (amount * 250n) / 10_000n;
  const reserveHold = ((amount - serviceFee - platformFee) * 1_000n) / 10_000n;
  return {
    orderId: toBytes32Id(`ord_${Math.random().toString(36).slice(2)}`),
    token: chain.usdc,
    amount,
    payer,
    merchant,
    platform,
    serviceFee,
    platformFee,
    reserveHold,
    deadline: latest.timestamp + 3600n,
    captureDeadline: 0n,
  };
}

function expectSplit(before: Awaited<ReturnType<typeof balances>>, after: typeof before, msg: PayOrderMessage) {
  expect(after.treasury - before.treasury).toBe(msg.serviceFee);
  expect(after.platform - before.platform).toBe(msg.platformFee);
  expect(after.merchant - before.merchant).toBe(msg.amount - msg.serviceFee - msg.platformFee - msg.reserveHold);
  expect(after.router - before.router).toBe(msg.reserveHold);
}

describe('paying an order', () => {
  it('approve + payOrder pushes each share and keeps the reserve in the router', async () => {
    const buyer = chain.buyers[0]!;
    const msg = await splitOrder(buyer.address);
    const signature = await signPayOrder(chain.signer, chain.chainId, chain.router, msg);
    const wallet = chain.walletClientFor(buyer);
    const before = await balances();
    const buyerBefore = await balanceOf(buyer.address);

    await chain.confirm(await wallet.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, msg.amount] }));
    const receipt = await chain.confirm(
      await wallet.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [msg, signature] }),
    );

    expectSplit(before, await balances(), msg);
    expect(buyerBefore - (await balanceOf(buyer.address))).toBe(msg.amount);
    // What the indexer reads: OrderPaid carries the agreed amount and split to compare with the order.
    const [paid] = parseEventLogs({ abi: paymentRouterAbi, eventName: 'OrderPaid', logs: receipt.logs });
    const block = await chain.publicClient.getBlock({ blockNumber: receipt.blockNumber });
    const hold = await chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'reserveHoldSeconds' });
    expect(paid?.args).toEqual({
      orderId: msg.orderId,
      payer: buyer.address,
      merchant,
      token: chain.usdc,
      amount: msg.amount,
      serviceFee: msg.serviceFee,
      platformFee: msg.platformFee,
      reserveHold: msg.reserveHold,
      platform,
      releaseAfter: block.timestamp + hold, // the per-order reserve hold, fixed at payment
    });
  });

  it('payOrderWithPermit pays in one transaction with a viem-signed EIP-2612 permit', async () => {
    const buyer: LocalAccount = chain.buyers[1]!;
    const msg = await splitOrder();
    const signature = await signPayOrder(chain.signer, chain.chainId, chain.router, msg);
    const read = <F extends 'name' | 'version'>(functionName: F) =>
      chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName });
    const nonce = await chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'nonces', args: [buyer.address] });
    const permitDeadline = BigInt(Math.floor(Date.now() / 1000) + 600);
    const permit = await buyer.signTypedData({
      domain: { name: await read('name'), version: await read('version'), chainId: chain.chainId, verifyingContract: chain.usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: buyer.address, spender: chain.router, value: msg.amount, nonce, deadline: permitDeadline },
    });
    const { v, r, s } = parseSignature(permit);
    const before = await balances();
    const hash = await chain.walletClientFor(buyer).writeContract({
      address: chain.router,
      abi: paymentRouterAbi,
      functionName: 'payOrderWithPermit',
      args: [msg, signature, permitDeadline, Number(v), r, s],
    });
    await chain.confirm(hash);

    expectSplit(before, await balances(), msg);
    const rec = await chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'orders', args: [msg.orderId] });
    expect(rec).toMatchObject({ paid: true, payer: buyer.address, amount: msg.amount, reserve: msg.reserveHold, refunded: 0n });
  });

  // Last in the file: it moves the chain's clock an hour ahead.
  it('refuses an order once the chain is past its deadline', async () => {
    const buyer = chain.buyers[2]!;
    const msg = await splitOrder();
    const signature = await signPayOrder(chain.signer, chain.chainId, chain.router, msg);
    const wallet = chain.walletClientFor(buyer);
    await chain.confirm(await wallet.writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, msg.amount] }));
    await chain.increaseTime(3601);
    const err = await revertOf(
      chain.publicClient.simulateContract({ account: buyer, address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [msg, signature] }),
    );
    expect(err.errorName).toBe('OrderExpired');
    expect(err.args[0]).toBe(msg.deadline);
  });
});
