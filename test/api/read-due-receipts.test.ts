import { encodeEventTopics, numberToHex, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainRuntime } from '../../src/modules/chains/service.js';
import { AUTHORIZATION_USED_EVENT, TRANSFER_EVENT } from '../../src/modules/indexer/events.js';
import type { AuthorizedTransferEvent } from '../../src/modules/indexer/handlers.js';
import { RECEIPTS_PER_PASS, readDueReceipts } from '../../src/modules/indexer/read-due-receipts.js';
import type { IndexerCtx } from '../../src/modules/indexer/context.js';
import { createLogger } from '../../src/lib/logger.js';
import { createHarness } from '../helpers/harness.js';

/**
 * The x402 front-running path's receipt reads (indexer/read-due-receipts.ts): only transfers marked receipt_due are
 * read, at most RECEIPTS_PER_PASS a pass, oldest first; the rest wait for the next passes and none is dropped.
 */
const CHAIN = 84532;
const USDC = '0x00000000000000000000000000000000000000aa' as Address;
const PAYER = '0x0000000000000000000000000000000000000001' as Address;
const ROUTER = '0x00000000000000000000000000000000000000bb' as Address;
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;
const NONCE = hashOf(0xabc);

let h: Awaited<ReturnType<typeof createHarness>>;
beforeAll(async () => { h = await createHarness(); });
afterAll(async () => { await h.close(); });

/**
 * A chain whose receipts are counted: transaction `claimedTx` used the payer's authorization NONCE to move 5 into the
 * router (AuthorizationUsed, then its Transfer at log index 1); every other due transaction used a nonce of the payer
 * for something else (AuthorizationUsed not followed by a Transfer to the router: no arrival).
 */
function fakeChain(claimedTx: Hex) {
  const reads: Hex[] = [];
  const log = (logIndex: number, topics: Hex[], data: Hex = '0x') => ({ address: USDC, topics, data, blockNumber: 1n, blockHash: hashOf(1), logIndex, transactionHash: claimedTx, transactionIndex: 0, removed: false });
  const used = log(0, encodeEventTopics({ abi: [AUTHORIZATION_USED_EVENT], args: { authorizer: PAYER, nonce: NONCE } }) as Hex[]);
  const moved = log(1, encodeEventTopics({ abi: [TRANSFER_EVENT], args: { from: PAYER, to: ROUTER } }) as Hex[], numberToHex(5n, { size: 32 }));
  const rt = {
    chainId: CHAIN, usdc: USDC, router: ROUTER,
    publicClient: {
      getTransactionReceipt: async ({ hash }: { hash: Hex }) => {
        reads.push(hash);
        return { status: 'success', blockHash: hashOf(1), logs: hash === claimedTx ? [used, moved] : [used] };
      },
    },
  } as unknown as ChainRuntime;
  return { rt, reads };
}
const PROOF = { header: '0x01' as Hex, txIndex: 0n, receiptProof: [], logIndex: 0n };

async function insertTransfers(n: number, due: (i: number) => boolean) {
  const rows = Array.from({ length: n }, (_, i) => ({
    id: `utx_due_${i}`, chain_id: CHAIN, token: USDC, from_address: PAYER, value: 5n, tx_hash: hashOf(1000 + i),
    block_number: BigInt(10 + i), block_time: new Date(), log_index: 1, event_key: `due-${i}`, receipt_due: due(i),
  }));
  await h.db.insertInto('unmatched_transfers').values(rows).execute();
  return rows;
}

describe('receipt reads of possibly front-run transfers', () => {
  it('reads at most RECEIPTS_PER_PASS receipts a pass, oldest first, only of due transfers; defers the rest, drops none', async () => {
    const rows = await insertTransfers(40, (i) => i % 4 !== 3); // 30 due, 10 not (dust: never read)
    const dueRows = rows.filter((r) => r.receipt_due);
    const claimed = dueRows[20]!.tx_hash;
    const { rt, reads } = fakeChain(claimed);
    const claims: AuthorizedTransferEvent[] = [];
    const ctx = {
      db: h.db, logger: createLogger('silent', 'devnet'),
      authorizedTransfers: { candidate: async () => true, prove: async () => PROOF, claim: async (_tx: unknown, e: AuthorizedTransferEvent) => (claims.push(e), e.txHash === claimed) },
    } as unknown as IndexerCtx;

    const perPass: number[] = [];
    for (let i = 0; i < 4; i++) perPass.push(await readDueReceipts(ctx, rt));
    expect(RECEIPTS_PER_PASS).toBe(16);
    expect(perPass).toEqual([16, 14, 0, 0]);
    expect(reads).toEqual(dueRows.map((r) => r.tx_hash)); // each due transfer once, in chain order; none of the others
    // Only the transfer that IS an arrival is offered, with its proof; a nonce used for something else offers nothing.
    expect(claims).toEqual([expect.objectContaining({ txHash: claimed, from: PAYER, nonce: NONCE, value: 5n, transferId: dueRows[20]!.id, proof: PROOF })]);
    expect(await h.db.selectFrom('unmatched_transfers').select('id').where('receipt_due', '=', true).execute()).toEqual([]);
    // Read and not claimed: alerted as unmatched now (29); the claimed one is not.
    const alerted = await h.db.selectFrom('chain_alerts').select('detail').where('kind', '=', 'unmatched_transfer').execute();
    expect(alerted.map((a) => (a.detail as { tx_hash: string }).tx_hash).sort()).toEqual(dueRows.filter((r) => r.tx_hash !== claimed).map((r) => r.tx_hash).sort());
  });

  it('reads nothing without the x402 front-running path wired', async () => {
    const { rt, reads } = fakeChain(hashOf(1));
    expect(await readDueReceipts({ db: h.db } as unknown as IndexerCtx, rt)).toBe(0);
    expect(reads).toEqual([]);
  });
});
