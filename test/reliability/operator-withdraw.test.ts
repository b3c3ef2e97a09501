import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueOperatorTx } from '../../src/modules/operator-txs/enqueue.js';
import { operatorTxsRepo } from '../../src/modules/operator-txs/repo.js';
import { withdrawQueuedIntents } from '../../src/modules/operator-txs/withdraw.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * An owner withdrawing a queued intent races the sender recording it: exactly one wins, and a lost record spends
 * no nonce (the lease's next_nonce is untouched, so the next intent takes the same nonce: no gap).
 */
let h: Harness;
beforeAll(async () => { h = await createHarness(); });
afterAll(async () => { await h?.close(); });

const SENDER = '0x00000000000000000000000000000000000000aa';
const HOLDER = 'test-holder';
const intent = (refId: string) => ({ chainId: 84532, purpose: 'subscription_charge' as const, refId, to: '0x00000000000000000000000000000000000000bb' as Hex, calldata: '0x' as Hex });
const signed = (nonce: bigint) => ({ nonce, hash: `0x${nonce.toString(16).padStart(64, '0')}` as Hex, raw: '0x01' as Hex, gasLimit: 100_000n, maxFee: 1n, maxPriority: 1n });

describe('withdrawing a queued operator intent', () => {
  it('withdrawn first: rejected with the reason, the sender\'s record of it fails and spends no nonce', async () => {
    await operatorTxsRepo.acquireLease(h.db, 84532, SENDER, HOLDER, 60_000);
    const a = await enqueueOperatorTx(h.db, intent('ord_withdraw_a'));
    expect(await h.db.transaction().execute((tx) => withdrawQueuedIntents(tx, 'subscription_charge', 'ord_withdraw_a', 'withdrawn: test'))).toBe(1);
    expect(await operatorTxsRepo.findById(h.db, a.id)).toMatchObject({ state: 'rejected', outcome: 'rejected', error: 'withdrawn: test' });
    const nonceBefore = (await operatorTxsRepo.lease(h.db, 84532, SENDER))!.next_nonce;
    await expect(h.db.transaction().execute((tx) => operatorTxsRepo.recordSignedMany(tx, SENDER, HOLDER, 84532, [{ id: a.id, s: signed(7n) }]))).rejects.toThrow();
    expect((await operatorTxsRepo.lease(h.db, 84532, SENDER))!.next_nonce).toBe(nonceBefore);
    expect(await operatorTxsRepo.attempts(h.db, a.id)).toEqual([]);
    // Withdrawing again withdraws nothing.
    expect(await h.db.transaction().execute((tx) => withdrawQueuedIntents(tx, 'subscription_charge', 'ord_withdraw_a', 'again'))).toBe(0);
  });

  it('recorded first: the withdrawal leaves it (it may be on the wire) and says so', async () => {
    const b = await enqueueOperatorTx(h.db, intent('ord_withdraw_b'));
    await h.db.transaction().execute((tx) => operatorTxsRepo.recordSignedMany(tx, SENDER, HOLDER, 84532, [{ id: b.id, s: signed(7n) }]));
    expect(await h.db.transaction().execute((tx) => withdrawQueuedIntents(tx, 'subscription_charge', 'ord_withdraw_b', 'too late'))).toBe(0);
    expect(await operatorTxsRepo.findById(h.db, b.id)).toMatchObject({ state: 'signed', nonce: 7n, error: null });
  });
});
