import { toFunctionSelector, type AbiFunction } from 'viem';
import { describe, expect, it } from 'vitest';
import { paymentRouterAbi as contractAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { erc20Abi as webErc20Abi, paymentRouterAbi as webRouterAbi } from '../../web/src/wallet/abi.js';
import { testUsdcAbi } from '../../src/chain/artifacts/TestUSDC.js';

/** The checkout page carries a minimal ABI fragment (no bytecode in the bundle): it must match the contracts. */
const selectors = (abi: readonly unknown[]) =>
  new Map((abi as AbiFunction[]).filter((f) => f.type === 'function').map((f) => [f.name, toFunctionSelector(f)]));

describe('web ABI fragments', () => {
  it('payOrder and payOrderWithPermit match the PaymentRouter artifact', () => {
    const contract = selectors(contractAbi);
    for (const [name, selector] of selectors(webRouterAbi)) expect(contract.get(name), name).toBe(selector);
  });

  it('the token calls match TestUSDC', () => {
    const contract = selectors(testUsdcAbi);
    for (const [name, selector] of selectors(webErc20Abi)) expect(contract.get(name), name).toBe(selector);
  });
});
