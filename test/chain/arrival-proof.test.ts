/**
 * The arrival proof (src/chain/arrival-proof.ts) against real anvil blocks holding several transactions: the header
 * hashes to the block hash, the re-encoded receipts make the block's receiptsRoot, and the proof verifies with
 * @ethereumjs/mpt's own verifier to the receipt whose log at `logIndex` is the AuthorizationUsed (find-arrival.ts).
 */
import { verifyMerkleProof } from '@ethereumjs/mpt';
import { bytesToHex, erc20Abi, fromRlp, hexToBytes, keccak256, toRlp, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildArrivalProof, encodeReceipt } from '../../src/chain/arrival-proof.js';
import { findArrivals } from '../../src/chain/find-arrival.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { cancelAuthorization, signTransfer, submitTransfer } from '../helpers/transfer-authorization.js';

let chain: TestChain;
const third = privateKeyToAccount(generatePrivateKey());
beforeAll(async () => {
  chain = await startTestChain({ buyers: 3 });
  await chain.anvil.setIntervalMining({ interval: 0 });
  await chain.anvil.setAutomine(false);
  for (const a of [third.address, ...chain.buyers.map((b) => b.address)]) await chain.anvil.setBalance({ address: a, value: 10n ** 20n });
}, 120_000);
afterAll(async () => chain?.stop());

async function mineAll(hashes: Hex[]) {
  await chain.mine(1);
  const receipts = await Promise.all(hashes.map((hash) => chain.publicClient.getTransactionReceipt({ hash })));
  for (const r of receipts) expect(r.status).toBe('success');
  return receipts;
}

describe('arrival proof', () => {
  it('a block of several transactions: header == block hash, receipts == receiptsRoot, the proof verifies to the arrival\'s receipt', async () => {
    const [a, b, c] = chain.buyers;
    const paid = await signTransfer(chain, a!, { to: chain.router, value: 1_000_000n });
    const other = await signTransfer(chain, c!, { to: third.address, value: 5n }); // an arrival elsewhere: not the router's
    const hashes = [
      await chain.walletClientFor(b!).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [chain.router, 7n], gas: 100_000n }),
      await submitTransfer(chain, third, other, { gas: 200_000n }),
      await submitTransfer(chain, third, paid, { gas: 200_000n }),
      await chain.walletClientFor(c!).writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'approve', args: [chain.router, 9n], gas: 100_000n }),
    ];
    const receipts = await mineAll(hashes);
    const block = await chain.publicClient.getBlock({ blockNumber: receipts[0]!.blockNumber });
    expect(block.transactions.length).toBeGreaterThanOrEqual(4);
    expect(new Set(receipts.map((r) => r.blockNumber)).size).toBe(1);

    const built = await buildArrivalProof(chain.publicClient as never, { txHash: hashes[2]!, token: chain.usdc, from: a!.address, nonce: paid.nonce, router: chain.router });
    expect(built.value).toBe(1_000_000n);
    expect(keccak256(built.proof.header)).toBe(block.hash);
    const fields = fromRlp(built.proof.header) as Hex[];
    expect(fields[5]).toBe(block.receiptsRoot);
    const receipt = receipts[2]!;
    expect(built.proof.txIndex).toBe(BigInt(receipt.transactionIndex));
    const key = hexToBytes(toRlp(receipt.transactionIndex === 0 ? '0x' : `0x${receipt.transactionIndex.toString(16).padStart(2, '0')}`));
    const proven = await verifyMerkleProof(key, built.proof.receiptProof.map((n) => hexToBytes(n)), { root: hexToBytes(block.receiptsRoot) });
    const raw = await chain.publicClient.request({ method: 'eth_getTransactionReceipt', params: [hashes[2]!] });
    expect(bytesToHex(proven!)).toBe(encodeReceipt(raw as never));
    // The position is inside the receipt: the AuthorizationUsed, then its Transfer.
    const arrivals = findArrivals(receipt.logs, chain.usdc, chain.router);
    expect(arrivals.map((x) => [x.position, x.from, x.value])).toEqual([[Number(built.proof.logIndex), a!.address, 1_000_000n]]);
    // A transfer to someone else is no arrival into the router.
    expect(findArrivals(receipts[1]!.logs, chain.usdc, chain.router)).toEqual([]);
    expect(findArrivals(receipts[1]!.logs, chain.usdc, third.address)).toHaveLength(1);
  }, 60_000);

  it('a nonce that moved nothing into the router (cancelled, or another payer\'s) is an error naming it, never a proof', async () => {
    const [a] = chain.buyers;
    const nonce = generatePrivateKey();
    const cancelled = await cancelAuthorization(chain, a!, nonce, { gas: 200_000n });
    const paid = await signTransfer(chain, a!, { to: chain.router, value: 3n });
    const sent = await submitTransfer(chain, third, paid, { gas: 200_000n });
    await mineAll([cancelled, sent]);
    await expect(buildArrivalProof(chain.publicClient as never, { txHash: cancelled, token: chain.usdc, from: a!.address, nonce, router: chain.router }))
      .rejects.toThrow(/holds no AuthorizationUsed/);
    await expect(buildArrivalProof(chain.publicClient as never, { txHash: sent, token: chain.usdc, from: third.address, nonce: paid.nonce, router: chain.router }))
      .rejects.toThrow(/holds no AuthorizationUsed/);
    const ok = await buildArrivalProof(chain.publicClient as never, { txHash: sent, token: chain.usdc, from: a!.address, nonce: paid.nonce, router: chain.router });
    expect(ok.value).toBe(3n);
  }, 60_000);

  it('falls back to one eth_getTransactionReceipt per transaction when the node has no eth_getBlockReceipts', async () => {
    const [b] = chain.buyers;
    const paid = await signTransfer(chain, b!, { to: chain.router, value: 11n });
    const sent = await submitTransfer(chain, third, paid, { gas: 200_000n });
    await mineAll([sent]);
    const client = chain.publicClient;
    const request = (async (args: { method: string; params: unknown }) => {
      if (args.method === 'eth_getBlockReceipts') throw new Error('the method eth_getBlockReceipts does not exist');
      return client.request(args as never);
    }) as typeof client.request;
    const built = await buildArrivalProof({ ...client, request } as never, { txHash: sent, token: chain.usdc, from: b!.address, nonce: paid.nonce, router: chain.router });
    expect(built.value).toBe(11n);
  }, 60_000);
});
