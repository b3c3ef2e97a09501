import { getAddress, isAddress, zeroAddress, type Address } from 'viem';
import { api } from '../../../lib/api';
import { isManual } from '../../../lib/capture';
import { toBase } from '../../../lib/money';
import type { CheckoutSession } from '../../../lib/types';

/**
 * Issue 38: an order paid by a plain USDC transfer to its own deposit address (a CREATE2 contract that can only
 * pay the router or return the funds to the refund address the payer chose). These are the order's fields the
 * hosted page reads; optional here so the page works against a service that does not offer deposits yet.
 */
export type DepositFields = {
  /** Null until the payer chose a refund address (the address depends on it). */
  deposit_address?: string | null;
  refund_address?: string | null;
  /** Base units (integer strings). */
  amount_received?: string;
  amount_due?: string;
  payment_method?: string | null;
};

export type Deposit = { depositAddress: Address | null; refundAddress: Address | null; received: bigint; due: bigint };

const baseUnits = (v: string | undefined, fallback: bigint): bigint => (v && /^[0-9]+$/.test(v) ? BigInt(v) : fallback);

/** The deposit fields of the session's order (or of the session itself), or null when the service sends none. */
export function depositOf(session: CheckoutSession): Deposit | null {
  const order = session.order as CheckoutSession['order'] & DepositFields;
  const top = session as CheckoutSession & DepositFields;
  const src: DepositFields | null = 'amount_due' in order || 'deposit_address' in order ? order : 'amount_due' in top || 'deposit_address' in top ? top : null;
  if (!src) return null;
  const received = baseUnits(src.amount_received, 0n);
  const total = toBase(session.order.amount);
  return {
    depositAddress: src.deposit_address && isAddress(src.deposit_address, { strict: false }) ? getAddress(src.deposit_address) : null,
    refundAddress: src.refund_address && isAddress(src.refund_address, { strict: false }) ? getAddress(src.refund_address) : null,
    received,
    due: baseUnits(src.amount_due, total > received ? total - received : 0n),
  };
}

/**
 * Whether this order can be paid by a plain transfer: the service offers deposits, and the order is neither
 * charge-later (a deposit pays at once: its terms carry no capture deadline) nor reserved for one payer wallet
 * (the router sees the deposit address as the payer).
 */
export function depositOffered(session: CheckoutSession): boolean {
  return depositOf(session) !== null && !isManual(session.order) && !session.payer_address;
}

/**
 * The refund address as typed: an EIP-55 address (a mixed-case one must match its checksum, so a mistyped
 * character is caught before any money depends on it), never the zero address. Returns it checksummed.
 */
export function checkRefundAddress(value: string): { address: Address } | { error: string } {
  const v = value.trim();
  if (!v) return { error: 'Enter the address any return should go to.' };
  if (!/^0x[0-9a-fA-F]{40}$/.test(v)) return { error: 'An address is 0x followed by 40 hexadecimal characters.' };
  if (!isAddress(v, { strict: true })) return { error: 'This address fails its checksum (a character may be mistyped). Paste it again from your wallet.' };
  const address = getAddress(v);
  if (address === zeroAddress) return { error: 'The zero address cannot receive anything back.' };
  return { address };
}

/**
 * The public call that sets the refund address (DepositFactory's address depends on it). The service answers
 * with the public session, whose order now carries its deposit address.
 */
export function setRefundAddress(sessionToken: string, refundAddress: Address): Promise<CheckoutSession> {
  return api.post<CheckoutSession>(`/v1/checkout/sessions/${encodeURIComponent(sessionToken)}/deposit_address`, { refund_address: refundAddress });
}
