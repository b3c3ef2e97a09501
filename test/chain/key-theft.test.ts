/**
 * Issue 15, item 4, on anvil with the deployed router and the service's real keys: what a thief holding the
 * service's signer key, its operator key, or even the router owner's key can do with the reserves. Each
 * attempt goes through viem exactly as an attacker's script would; none moves a reserve anywhere but back
 * to the payer or, after the recorded hold, to the merchant.
 */
import { erc20Abi, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { signRefundOrder, toBytes32Id } from '../../src/chain/eip712.js';
import { balanceOf, createFlow, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';
import { revertOf } from '../helpers/chain.js';

let f: Flow;
let orderId: Hex;
let reserve: bigint;
let merchantWallet: Address;
const thief = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  f = await createFlow();
  await f.chain.anvil.setBalance({ address: thief.address, value: 10n ** 20n });
  const s = await setupPlatform(f.h, 500, 2000);
  merchantWallet = s.merchantWallet;
  const o = (await f.h.request('POST', '/v1/orders', { key: s.p.secretKey, body: { merchant_id: s.m.external_id, order_no: 'theft-1', chain_id: 84532, token: 'USDC', amount: '100.00' } })).body;
  await payAsBuyer(f.chain, f.chain.buyers[0]!, o);
  orderId = o.eip712.message.orderId;
  reserve = BigInt(o.computed_split.reserve_hold);
  expect(reserve).toBeGreaterThan(0n);
});
afterAll(async () => { await f.close(); });

const read = <T>(functionName: 'orders' | 'reserved', args: readonly unknown[]) =>
  f.chain.publicClient.readContract({ address: f.chain.router, abi: paymentRouterAbi, functionName, args } as never) as Promise<T>;
const routerCall = (key: Hex | LocalAccount, functionName: string, args: readonly unknown[]) => {
  const account = typeof key === 'string' ? privateKeyToAccount(key) : key;
  return f.chain.publicClient.simulateContract({ address: f.chain.router, abi: paymentRouterAbi, functionName, args, account } as never);
};
const operatorWallet = () => f.chain.walletClientFor(privateKeyToAccount(f.h.config.operatorPrivateKey!));
const orderReserve = async () => (await read<{ reserve: bigint }>('orders', [orderId])).reserve;

describe('a stolen signer key', () => {
  it('cannot sign a refund that pays the thief: the router pays only the recorded payer', async () => {
    const signer = privateKeyToAccount(f.h.config.signerPrivateKey!);
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const ro = { orderId, refundId: toBytes32Id('re_thief'), to: thief.address, amount: reserve, deadline };
    const signature = await signRefundOrder(signer, 84532, f.chain.router, ro);
    const err = await revertOf(routerCall(thief, 'refund', [ro, signature]));
    expect(err.errorName).toBe('RefundNotToPayer');
    expect(err.args).toEqual([f.chain.buyers[0]!.address, thief.address]);
    expect(await orderReserve()).toBe(reserve);
  });
});

describe('a stolen operator key', () => {
  it('cannot release a reserve before its recorded hold, nor to anyone but the merchant', async () => {
    const operator = f.h.config.operatorPrivateKey!;
    const wallet = operatorWallet();
    const before = await balanceOf(f.chain, merchantWallet);
    await f.chain.confirm(await wallet.writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'settleBatch', args: [toBytes32Id('stl_early'), [orderId]] }));
    expect(await orderReserve()).toBe(reserve); // inside the hold: skipped
    expect(await balanceOf(f.chain, merchantWallet)).toBe(before);
    expect((await revertOf(routerCall(operator, 'recoverExcess', [f.chain.usdc, thief.address]))).errorName).toBe('OwnableUnauthorizedAccount');
    expect((await revertOf(routerCall(operator, 'setReserveHold', [0n]))).errorName).toBe('OwnableUnauthorizedAccount');
  });
});

describe('even the router owner', () => {
  it('moves only what was sent to the router by mistake, never a reserve', async () => {
    const owner = f.chain.walletClientFor(f.chain.owner);
    expect((await revertOf(routerCall(f.chain.owner, 'recoverExcess', [f.chain.usdc, thief.address]))).errorName).toBe('ZeroAmount');
    // A buyer sends 7 USDC straight to the router (a common wallet mistake).
    const buyer = f.chain.walletClientFor(f.chain.buyers[1]!);
    await f.chain.confirm(await buyer.writeContract({ address: f.chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [f.chain.router, 7_000_000n] }));
    const routerBefore = await balanceOf(f.chain, f.chain.router);
    await f.chain.confirm(await owner.writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'recoverExcess', args: [f.chain.usdc, f.chain.buyers[1]!.address] }));
    expect(routerBefore - (await balanceOf(f.chain, f.chain.router))).toBe(7_000_000n);
    expect(await balanceOf(f.chain, f.chain.router)).toBe(await read<bigint>('reserved', [f.chain.usdc]));
    expect(await orderReserve()).toBe(reserve);
    // A shorter hold set now does not shorten the hold this order was paid under.
    await f.chain.confirm(await owner.writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'setReserveHold', args: [0n] }));
    await f.chain.confirm(await operatorWallet().writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName: 'settleBatch', args: [toBytes32Id('stl_after_set'), [orderId]] }));
    expect(await orderReserve()).toBe(reserve);
  });
});
