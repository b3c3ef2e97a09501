import { parseEventLogs, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { depositFactoryAbi } from '../../src/chain/artifacts/DepositFactory.js';
import { depositForwarderAbi } from '../../src/chain/artifacts/DepositForwarder.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { badRefundTo, depositImplementationOf, depositPayOrder, predictDepositAddress, type DepositTerms } from '../../src/chain/deposit-terms.js';
import { signPayOrder, toBytes32Id } from '../../src/chain/eip712.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../helpers/chain.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let chain: TestChain;
let signerKey: `0x${string}`;
const fresh = (): Address => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  chain = await startTestChain({ buyers: 1 });
  signerKey = (await authoriseServiceKeys(chain)).signerPrivateKey;
});
afterAll(async () => {
  await chain?.stop();
});

async function terms(amount = 10_000_000n): Promise<DepositTerms> {
  const latest = await chain.publicClient.getBlock({ blockTag: 'latest' });
  return {
    orderId: toBytes32Id(`ord_${Math.random().toString(36).slice(2)}`), token: chain.usdc, amount, merchant: fresh(), platform: fresh(),
    serviceFee: amount / 100n, platformFee: amount / 40n, reserveHold: amount / 10n, deadline: latest.timestamp + 3600n,
  };
}

describe('deposit address prediction', () => {
  it('equals DepositFactory.predict for several terms and refund addresses', async () => {
    for (let i = 0; i < 4; i++) {
      const t = await terms(BigInt(1 + i) * 1_234_567n);
      const refundTo = fresh();
      const onChain = await chain.publicClient.readContract({ address: chain.depositFactory, abi: depositFactoryAbi, functionName: 'predict', args: [t, refundTo] });
      expect(predictDepositAddress({ factory: chain.depositFactory, router: chain.router, terms: t, refundTo })).toBe(onChain);
    }
  });

  it('knows the implementation the factory created', async () => {
    const impl = await chain.publicClient.readContract({ address: chain.depositFactory, abi: depositFactoryAbi, functionName: 'implementation' });
    expect(depositImplementationOf(chain.depositFactory)).toBe(impl);
  });

  it('a deposit funded with the amount pays the order with the service signature over payer = the predicted address', async () => {
    const t = await terms();
    const refundTo = fresh();
    const deposit = predictDepositAddress({ factory: chain.depositFactory, router: chain.router, terms: t, refundTo });
    const signature = await signPayOrder(privateKeyToAccount(signerKey), chain.chainId, chain.router, depositPayOrder(t, deposit));
    await chain.fundUsdc(deposit, t.amount + 5n);
    const buyer = chain.walletClientFor(chain.buyers[0]!);
    const receipt = await chain.confirm(await buyer.writeContract({ address: chain.depositFactory, abi: depositFactoryAbi, functionName: 'deployAndSweep', args: [t, refundTo, signature] }));
    const swept = parseEventLogs({ abi: depositForwarderAbi, logs: receipt.logs, eventName: 'DepositSwept' });
    expect(swept[0]!.args).toMatchObject({ paid: t.amount, returned: 5n });
    expect(await chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [refundTo] })).toBe(5n);
  });

  it('refuses refund addresses the factory refuses, and the token', () => {
    const p = { factory: chain.depositFactory, router: chain.router, token: chain.usdc, deposit: fresh() };
    expect(badRefundTo('0x0000000000000000000000000000000000000000', p)).toBe('the zero address');
    expect(badRefundTo(chain.router, p)).toBe('the router');
    expect(badRefundTo(chain.depositFactory.toLowerCase() as Address, p)).toBe('the deposit factory');
    expect(badRefundTo(chain.usdc, p)).toBe('the token');
    expect(badRefundTo(p.deposit, p)).toBe('the deposit address itself');
    expect(badRefundTo(fresh(), p)).toBeNull();
  });
});
