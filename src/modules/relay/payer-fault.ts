/**
 * Reverts a payer causes (token reasons as decoded by operator-txs decode-revert.ts): it moved its balance, used or
 * cancelled the authorization, is on the token's blocklist, or its wallet stopped accepting its own signature or
 * needed more gas than at acceptance (the token and the router are fixed code: only the payer's wallet varies).
 * The service's own causes (pause, an order cancelled or expired, node trouble) are not the payer's.
 */
const PAYER_FAULTS: RegExp[] = [
  /^Error: ERC20: transfer amount exceeds balance$/,
  /^Error: ERC20: transfer amount exceeds allowance$/,
  /^Error: FiatTokenV2: authorization is used or canceled$/,
  /^Error: FiatTokenV2: invalid signature$/,
  /^Error: Blacklistable: account is blacklisted$/,
  /^Error: FiatTokenV2_2: Account is blacklisted$/,
  /^ERC20InsufficientBalance$/,
  /^ERC20InsufficientAllowance$/,
  /^gas_limit_exceeded$/,
  /^out of gas$/,
];

export function isPayerFault(reason: string | null): boolean {
  return reason !== null && PAYER_FAULTS.some((r) => r.test(reason));
}

/** How long a payer whose relay failed for a cause it controls is refused gasless (chain clock). */
export const PAYER_BAN_SECONDS = 86_400n;
