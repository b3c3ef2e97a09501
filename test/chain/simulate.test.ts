import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, encodeFunctionData, erc20Abi, http as httpTransport, type Hex, type PublicClient } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { simulate } from '../../src/modules/operator-txs/simulate.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';

/**
 * The sender's and the relay's simulation (operator-txs simulate.ts): one eth_simulateV1 where the node has it,
 * eth_estimateGas where it does not, and the same answers either way, against anvil and Circle's USDC.
 */
type Mode = 'pass' | 'method_not_found' | 'invalid_params';

/** A JSON-RPC proxy in front of anvil that counts methods and can refuse eth_simulateV1 (single and batch requests). */
async function rpcProxy(target: string) {
  const seen: string[] = [];
  let mode: Mode = 'pass';
  const refusal = (id: unknown) =>
    mode === 'method_not_found'
      ? { jsonrpc: '2.0', id, error: { code: -32601, message: 'the method eth_simulateV1 does not exist/is not available' } }
      : { jsonrpc: '2.0', id, error: { code: -32602, message: 'invalid params' } };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const one = async (r: { id: unknown; method: string }) => {
      seen.push(r.method);
      if (r.method === 'eth_simulateV1' && mode !== 'pass') return refusal(r.id);
      const up = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(r) });
      return up.json();
    };
    const answer = Array.isArray(body) ? await Promise.all(body.map(one)) : await one(body);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    setMode: (m: Mode) => (mode = m),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('simulate: eth_simulateV1, else eth_estimateGas', () => {
  let chain: TestChain;
  let proxy: Awaited<ReturnType<typeof rpcProxy>>;
  const client = (): PublicClient => createPublicClient({ transport: httpTransport(proxy.url, { retryCount: 0 }) }) as PublicClient;

  beforeAll(async () => {
    chain = await startTestChain({ buyers: 2 });
    proxy = await rpcProxy(chain.rpcUrl);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await chain?.stop();
  });

  const transfer = (to: Hex, amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });

  it('one eth_simulateV1 gives success and a gas limit the transaction mines with, also when it earns a refund', async () => {
    proxy.setMode('pass');
    proxy.seen.length = 0;
    const [buyer] = chain.buyers;
    const balance = await chain.publicClient.readContract({ address: chain.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [buyer!.address] });
    // The whole balance: the sender's balance slot goes to zero, so part of the gas used comes back as a refund
    // and the gas used understates what the transaction needs while it runs.
    const data = transfer(privateKeyToAccount(generatePrivateKey()).address, balance);
    const sim = await simulate(client(), buyer!, chain.usdc, data);
    expect(proxy.seen).toEqual(['eth_simulateV1']);
    if (!sim.ok) throw new Error(sim.error);
    const hash = await chain.walletClientFor(buyer!).sendTransaction({ to: chain.usdc, data, gas: sim.gasLimit });
    const receipt = await chain.confirm(hash);
    expect(receipt.status).toBe('success');
    expect(sim.gasLimit).toBeGreaterThan(receipt.gasUsed);
    expect(sim.gasLimit).toBeLessThan(2n * receipt.gasUsed + 30_000n); // a limit, not a blank cheque
  });

  it('a revert is named the same way by both paths, and nothing is sent', async () => {
    const [, buyer] = chain.buyers;
    const data = transfer(chain.treasury, 10n ** 30n); // more than anyone holds
    proxy.setMode('pass');
    const viaSimulate = await simulate(client(), buyer!, chain.usdc, data);
    proxy.setMode('invalid_params');
    const viaEstimate = await simulate(client(), buyer!, chain.usdc, data);
    expect(viaSimulate).toEqual({ ok: false, error: 'Error: ERC20: transfer amount exceeds balance' });
    expect(viaEstimate).toEqual(viaSimulate);
  });

  it('under a gas cap a call that needs more fails out of gas (both paths); on the pending block a transfer in the pool is seen', async () => {
    const [, other] = chain.buyers; // still holds its USDC: a transfer of 1 needs more than 25,000 gas, and succeeds without the cap
    const data = transfer(chain.treasury, 1n);
    proxy.setMode('pass');
    expect((await simulate(client(), other!, chain.usdc, data)).ok).toBe(true);
    expect(await simulate(client(), other!, chain.usdc, data, { gas: 25_000n })).toEqual({ ok: false, error: 'out of gas', gasUsed: 25_000n });
    proxy.setMode('invalid_params');
    proxy.seen.length = 0;
    expect(await simulate(client(), other!, chain.usdc, data, { gas: 25_000n })).toMatchObject({ ok: false, error: 'out of gas' });
    expect(proxy.seen).toEqual(['eth_simulateV1', 'eth_estimateGas']);
    // A revert under a cap is still named (the estimate's request is sent as is).
    expect(await simulate(client(), other!, chain.usdc, transfer(chain.treasury, 10n ** 30n), { gas: 200_000n })).toEqual({ ok: false, error: 'Error: ERC20: transfer amount exceeds balance' });
    proxy.setMode('pass');
    await chain.anvil.setAutomine(false);
    await chain.anvil.setIntervalMining({ interval: 0 });
    try {
      const all = await chain.publicClient.readContract({ address: chain.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [other!.address] });
      await chain.walletClientFor(other!).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [chain.treasury, all], gas: 100_000n });
      const again = transfer(chain.treasury, all);
      expect((await simulate(client(), other!, chain.usdc, again, { blockTag: 'latest' })).ok).toBe(true);
      expect(await simulate(client(), other!, chain.usdc, again, { blockTag: 'pending' })).toMatchObject({ ok: false, error: 'Error: ERC20: transfer amount exceeds balance' });
    } finally {
      await chain.mine(1);
      await chain.anvil.setIntervalMining({ interval: 1 });
    }
  });

  it('a node without eth_simulateV1 is asked eth_estimateGas, and not asked eth_simulateV1 again', async () => {
    proxy.setMode('method_not_found');
    proxy.seen.length = 0;
    const c = client();
    const [buyer] = chain.buyers;
    const data = transfer(chain.treasury, 0n);
    const first = await simulate(c, buyer!, chain.usdc, data);
    const second = await simulate(c, buyer!, chain.usdc, data);
    expect(first.ok && second.ok).toBe(true);
    expect(proxy.seen).toEqual(['eth_simulateV1', 'eth_estimateGas', 'eth_estimateGas']);
  });

  it('any other JSON-RPC error to eth_simulateV1 falls back for that call only; an unreachable node is an error', async () => {
    proxy.setMode('invalid_params');
    proxy.seen.length = 0;
    const c = client();
    const [buyer] = chain.buyers;
    const data = transfer(chain.treasury, 0n);
    expect((await simulate(c, buyer!, chain.usdc, data)).ok).toBe(true);
    expect((await simulate(c, buyer!, chain.usdc, data)).ok).toBe(true);
    expect(proxy.seen).toEqual(['eth_simulateV1', 'eth_estimateGas', 'eth_simulateV1', 'eth_estimateGas']);
    const down = createPublicClient({ transport: httpTransport('http://127.0.0.1:9', { retryCount: 0 }) }) as PublicClient;
    await expect(simulate(down, buyer!, chain.usdc, data)).rejects.toThrow();
  });
});
