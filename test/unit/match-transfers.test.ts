import { describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { matchTransfers } from '../../src/modules/indexer/match-transfers.js';
import type { RouterLog, TransferLog } from '../../src/modules/indexer/events.js';

const USDC = '0x00000000000000000000000000000000000000aa' as Address;
const ROUTER = '0x00000000000000000000000000000000000000bb' as Address;
const PAYER = '0x0000000000000000000000000000000000000001' as Address;
const FUNDER = '0x0000000000000000000000000000000000000002' as Address;
const STRANGER = '0x0000000000000000000000000000000000000003' as Address;
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex;

const transfer = (txHash: Hex, from: Address, value: bigint, logIndex: number) =>
  ({ eventName: 'Transfer', address: USDC, transactionHash: txHash, logIndex, blockNumber: 1n, args: { from, to: ROUTER, value } }) as unknown as TransferLog;
const refunded = (txHash: Hex, fromSubmitter: bigint, logIndex: number) =>
  ({ eventName: 'Refunded', transactionHash: txHash, logIndex, blockNumber: 1n, args: { orderId: tx(99), refundId: tx(98), to: PAYER, amount: fromSubmitter + 5n, fromReserve: 5n, fromSubmitter } }) as unknown as RouterLog;
const paid = (txHash: Hex, payer: Address, amount: bigint, logIndex: number) =>
  ({ eventName: 'OrderPaid', transactionHash: txHash, logIndex, blockNumber: 1n, args: { orderId: tx(97), payer, token: USDC, amount } }) as unknown as RouterLog;

const authorized = (txHash: Hex, payer: Address, amount: bigint, logIndex: number) =>
  ({ eventName: 'OrderAuthorized', transactionHash: txHash, logIndex, blockNumber: 1n, args: { orderId: tx(96), payer, merchant: STRANGER, token: USDC, amount, platform: STRANGER, captureDeadline: 9n } }) as unknown as RouterLog;
const MANAGER = '0x00000000000000000000000000000000000000cc' as Address;
const charged = (txHash: Hex, amount: bigint, logIndex: number) =>
  ({ eventName: 'Charged', address: MANAGER, transactionHash: txHash, logIndex, blockNumber: 1n, args: { permissionHash: tx(95), orderId: tx(94), periodIndex: 0n, amount } }) as unknown as RouterLog;

describe('matchTransfers', () => {
  it('a charge-later pull into escrow (OrderAuthorized) is the router\'s own, not USDC sent straight to it', () => {
    const { unmatched } = matchTransfers([transfer(tx(6), PAYER, 7n, 1), transfer(tx(7), PAYER, 7n, 1)], [authorized(tx(6), PAYER, 7n, 3)], USDC);
    expect(unmatched.map((t) => t.transactionHash)).toEqual([tx(7)]); // the same payer's plain transfer elsewhere stays unmatched
  });

  it('a subscription charge (from the manager, its Charged in the transaction) is matched; the payer\'s OrderPaid does not take it', () => {
    const fromManager = transfer(tx(8), MANAGER, 7n, 2);
    const { unmatched } = matchTransfers([fromManager], [paid(tx(8), PAYER, 7n, 3), charged(tx(8), 7n, 4)], USDC);
    expect(unmatched).toEqual([]);
    // A transfer from anyone else of the same value in that transaction is not the manager's pull.
    const other = transfer(tx(9), STRANGER, 7n, 2);
    expect(matchTransfers([other], [charged(tx(9), 7n, 4)], USDC).unmatched).toEqual([other]);
  });

  it('names the sender of the transfer that paid a refund\'s submitter part as its funder', () => {
    const r = refunded(tx(1), 7n, 3);
    const { unmatched, funders } = matchTransfers([transfer(tx(1), FUNDER, 7n, 1)], [r], USDC);
    expect(unmatched).toEqual([]);
    expect(funders.get(r)).toBe(FUNDER);
  });

  it('pairs within one transaction only, and leaves a refund paid wholly from the reserve without a funder', () => {
    const wholeReserve = refunded(tx(2), 0n, 2);
    const funded = refunded(tx(3), 7n, 2);
    const elsewhere = transfer(tx(4), STRANGER, 7n, 1); // same value, other transaction: a plain transfer
    const { unmatched, funders } = matchTransfers([elsewhere, transfer(tx(3), FUNDER, 7n, 1)], [wholeReserve, funded], USDC);
    expect(unmatched).toEqual([elsewhere]);
    expect(funders.has(wholeReserve)).toBe(false);
    expect(funders.get(funded)).toBe(FUNDER);
  });

  it('does not take a payment\'s pull for a refund\'s funder when both are in one transaction', () => {
    const p = paid(tx(5), PAYER, 7n, 2);
    const r = refunded(tx(5), 7n, 4);
    const { unmatched, funders } = matchTransfers([transfer(tx(5), PAYER, 7n, 1), transfer(tx(5), FUNDER, 7n, 3)], [p, r], USDC);
    expect(unmatched).toEqual([]);
    expect(funders.get(r)).toBe(FUNDER);
  });
});
