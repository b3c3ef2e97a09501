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

const AUTHORIZATION_USED = /^Error: FiatTokenV2: authorization is used or canceled$/;

/**
 * `via` is the relay's: an x402 authorization names only the router and the amount, so anyone holding it may submit
 * it to the token first (front-running). Its relay then fails on the used nonce without the payer's doing, and the
 * payment is completed from the funds it moved (x402/front-run.ts): no ban for that reason on an x402 relay.
 */
export function isPayerFault(reason: string | null, via?: string): boolean {
  if (reason === null) return false;
  if (via === 'x402' && AUTHORIZATION_USED.test(reason)) return false;
  return PAYER_FAULTS.some((r) => r.test(reason));
}

/** How long a payer whose relay failed for a cause it controls is refused gasless (chain clock). */
export const PAYER_BAN_SECONDS = 86_400n;
