import { hashTypedData, keccak256, maxUint48, stringToHex, zeroAddress, type Address, type Hex } from 'viem';
import type { SubscriptionInterval } from '../../db/schema.js';

/**
 * The SpendPermission the payer signs once (docs/subscriptions.md): amount per period, period length, window
 * [start, end), the split the payer agrees to and a salt naming the subscription. The SubscriptionManager
 * checks it on every charge; the service only ever asks for what it allows.
 */
export type SpendPermission = {
  payer: Address; token: Address; merchant: Address; platform: Address; amount: bigint; period: number; start: number; end: number;
  serviceFeeBps: number; platformFeeBps: number; reserveBps: number; salt: bigint;
};

/** A month is 30 days and a year 365 (the contract's periods are fixed lengths, never calendar months). */
export const INTERVAL_SECONDS: Record<SubscriptionInterval, number> = { day: 86_400, week: 604_800, month: 2_592_000, year: 31_536_000 };

export const periodSecondsOf = (interval: SubscriptionInterval, count: number) => INTERVAL_SECONDS[interval] * count;

/** No end: the largest uint48 (the contract's "forever"). */
export const NO_END = Number(maxUint48);

export const saltOf = (subscriptionId: string): bigint => BigInt(keccak256(stringToHex(subscriptionId)));

export const endOf = (start: number, period: number, maxPeriods: number | null) => (maxPeriods === null ? NO_END : start + maxPeriods * period);

export const SPEND_PERMISSION_TYPES = {
  SpendPermission: [
    { name: 'payer', type: 'address' }, { name: 'token', type: 'address' }, { name: 'merchant', type: 'address' },
    { name: 'platform', type: 'address' }, { name: 'amount', type: 'uint160' }, { name: 'period', type: 'uint32' },
    { name: 'start', type: 'uint48' }, { name: 'end', type: 'uint48' }, { name: 'serviceFeeBps', type: 'uint16' },
    { name: 'platformFeeBps', type: 'uint16' }, { name: 'reserveBps', type: 'uint16' }, { name: 'salt', type: 'uint256' },
  ],
} as const;

export const managerDomain = (chainId: number, manager: Address) =>
  ({ name: 'Trisettle Subscriptions', version: '1', chainId, verifyingContract: manager }) as const;

/** The EIP-712 digest the payer signs (and the manager's hashPermission's typed-data hash). */
export const permissionDigest = (chainId: number, manager: Address, p: SpendPermission): Hex =>
  hashTypedData({ domain: managerDomain(chainId, manager), types: SPEND_PERMISSION_TYPES, primaryType: 'SpendPermission', message: p });

/** JSON of a permission (decimal strings for the big numbers), as stored and as answered. */
export const permissionJson = (p: SpendPermission) => ({
  payer: p.payer, token: p.token, merchant: p.merchant, platform: p.platform, amount: p.amount.toString(), period: p.period,
  start: p.start, end: p.end, serviceFeeBps: p.serviceFeeBps, platformFeeBps: p.platformFeeBps, reserveBps: p.reserveBps, salt: p.salt.toString(),
});
export type PermissionJson = ReturnType<typeof permissionJson>;

export const permissionFromJson = (j: PermissionJson): SpendPermission => ({
  ...j, amount: BigInt(j.amount), salt: BigInt(j.salt), period: Number(j.period), start: Number(j.start), end: Number(j.end),
});

/** The EIP-712 typed data of a permission as the public read gives it (payer unknown yet: the zero address, filled by the page). */
export const typedDataJson = (chainId: number, manager: Address, p: SpendPermission) => ({
  domain: managerDomain(chainId, manager), types: { SpendPermission: SPEND_PERMISSION_TYPES.SpendPermission.map((f) => ({ ...f })) }, primary_type: 'SpendPermission' as const,
  message: { ...permissionJson(p), payer: p.payer === zeroAddress ? zeroAddress : p.payer },
});
