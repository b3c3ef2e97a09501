import { id as ethersId, verifyTypedData as ethersVerifyTypedData } from 'ethers';
import { getAddress, hashTypedData, recoverTypedDataAddress, zeroAddress, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import {
  payOrderFromJson,
  payOrderJson,
  payOrderTypes,
  refundOrderJson,
  refundOrderTypes,
  routerDomain,
  signPayOrder,
  toBytes32Id,
  type PayOrderMessage,
} from '../../src/chain/eip712.js';
import { revertOf, startTestChain, type TestChain } from '../helpers/chain.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let chain: TestChain;
beforeAll(async () => {
  chain = await startTestChain();
});
afterAll(async () => {
  await chain?.stop();
});

function order(overrides: Partial<PayOrderMessage> = {}): PayOrderMessage {
  return {
    orderId: toBytes32Id(`ord_${Math.random().toString(36).slice(2)}`),
    token: chain.usdc,
    amount: 25_000_000n,
    payer: zeroAddress,
    merchant: '0x00000000000000000000000000000000000000A1',
    platform: '0xb2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2',
    serviceFee: 250_000n,
    platformFee: 1_250_000n,
    reserveHold: 2_350_000n,
    deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
    captureDeadline: 0n,
    ...overrides,
  };
}

/** Runs payOrder in eth_call and returns the custom error the router reverted with. */
const payRevert = (msg: PayOrderMessage, signature: `0x${string}`) =>
  revertOf(
    chain.publicClient.simulateContract({
      account: chain.buyers[0]!.address,
      address: chain.router,
      abi: paymentRouterAbi,
      functionName: 'payOrder',
      args: [msg, signature],
    }),
  );

describe('EIP-712 PayOrder', () => {
  it('derives on-chain ids from public ids with keccak256 of the UTF-8 bytes', () => {
    expect(toBytes32Id('ord_abc')).toBe(ethersId('ord_abc'));
    expect(toBytes32Id('stl_é')).toBe(ethersId('stl_é'));
  });

  it('hashes exactly like the deployed router', async () => {
    const msg = order();
    const onChain = await chain.publicClient.readContract({
      address: chain.router,
      abi: paymentRouterAbi,
      functionName: 'hashPayOrder',
      args: [msg],
    });
    const local = hashTypedData({
      domain: routerDomain(chain.chainId, chain.router),
      types: payOrderTypes,
      primaryType: 'PayOrder',
      message: msg,
    });
    expect(onChain).toBe(local);
  });

  it("accepts the service's viem signature on chain and pays the order", async () => {
    const msg = order();
    const signature = await signPayOrder(chain.signer, chain.chainId, chain.router, msg);
    const buyer = chain.walletClientFor(chain.buyers[0]!);
    const approve = await buyer.writeContract({
      address: chain.usdc,
      abi: [{ type: 'function', name: 'approve', stateMutability: 'nonpayable', inputs: [{ name: 's', type: 'address' }, { name: 'v', type: 'uint256' }], outputs: [{ type: 'bool' }] }],
      functionName: 'approve',
      args: [chain.router, msg.amount],
    });
    await chain.confirm(approve);
    const hash = await buyer.writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [msg, signature] });
    await chain.confirm(hash);
    const rec = await chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'orders', args: [msg.orderId] });
    expect(rec.paid).toBe(true);
    expect(rec.payer).toBe(chain.buyers[0]!.address);
  });

  it('is verified by ethers v6 (an independent EIP-712 implementation) to the same signer', async () => {
    const msg = order();
    const signature = await signPayOrder(chain.signer, chain.chainId, chain.router, msg);
    const types = { PayOrder: payOrderTypes.PayOrder.map((f) => ({ ...f })) };
    const recovered = ethersVerifyTypedData(routerDomain(chain.chainId, chain.router), types, msg, signature);
    expect(recovered).toBe(chain.signer.address);
  });

  it('produces API JSON that ethers and viem verify after a JSON round trip', async () => {
    const msg = order({ payer: chain.buyers[1]!.address });
    const signature = await signPayOrder(chain.signer, chain.chainId, chain.router, msg);
    const json = JSON.parse(JSON.stringify(payOrderJson(chain.chainId, chain.router, msg))) as ReturnType<typeof payOrderJson>;

    expect(json.primary_type).toBe('PayOrder');
    expect(json.domain).toEqual({ name: 'Trisettle PaymentRouter', version: '1', chainId: chain.chainId, verifyingContract: chain.router });
    expect(json.message.amount).toBe('25000000');
    expect(json.message.platform).toBe(getAddress(msg.platform)); // checksummed (given in lower case)
    expect(json.message.platform).not.toBe(msg.platform);

    // ethers: decimal strings are accepted as uint256; the EIP712Domain entry must be left out.
    const { EIP712Domain: _domainType, ...ethersTypes } = json.types;
    const mutableTypes = { PayOrder: ethersTypes.PayOrder.map((f) => ({ ...f })) };
    expect(ethersVerifyTypedData(json.domain, mutableTypes, json.message, signature)).toBe(chain.signer.address);

    // viem / wagmi: the JSON types as they are (EIP712Domain included; its typing then wants a bigint
    // chainId) plus the struct rebuilt with payOrderFromJson.
    const struct = payOrderFromJson(json);
    expect(struct).toEqual({ ...msg, platform: getAddress(msg.platform) });
    const viaViem = await recoverTypedDataAddress({
      domain: { ...json.domain, chainId: BigInt(json.domain.chainId) },
      types: json.types,
      primaryType: 'PayOrder',
      message: struct,
      signature,
    });
    expect(viaViem).toBe(chain.signer.address);
  });

  it('refuses a signature made for chain 8453', async () => {
    const msg = order();
    const signature = await signPayOrder(chain.signer, 8453, chain.router, msg);
    const err = await payRevert(msg, signature);
    expect(err.errorName).toBe('InvalidSigner');
    expect(err.args[0]).not.toBe(chain.signer.address);
  });

  it('refuses a signature made for another router address', async () => {
    const msg = order();
    const other: Address = '0x1111111111111111111111111111111111111111';
    const signature = await signPayOrder(chain.signer, chain.chainId, other, msg);
    const err = await payRevert(msg, signature);
    expect(err.errorName).toBe('InvalidSigner');
  });

  it('refuses a signature from a key that is not an authorised signer', async () => {
    const msg = order();
    const signature = await signPayOrder(chain.buyers[2]!, chain.chainId, chain.router, msg);
    const err = await payRevert(msg, signature);
    expect(err.errorName).toBe('InvalidSigner');
    expect(err.args[0]).toBe(chain.buyers[2]!.address);
  });

  it('serialises RefundOrder typed data the same way', async () => {
    const msg = { orderId: toBytes32Id('ord_x'), refundId: toBytes32Id('re_x'), to: chain.buyers[0]!.address, amount: 5n, deadline: 99n };
    const json = refundOrderJson(chain.chainId, chain.router, msg);
    expect(json.types.RefundOrder).toEqual(refundOrderTypes.RefundOrder);
    expect(json.message).toEqual({ ...msg, amount: '5', deadline: '99' });
  });
});
