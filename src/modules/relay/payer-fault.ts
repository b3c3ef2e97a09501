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

/** The token's revert when the authorization's nonce was used or cancelled before the relay (x402/front-run.ts lifts it). */
export const AUTHORIZATION_USED_REASON = 'Error: FiatTokenV2: authorization is used or canceled';

/**
 * A used or cancelled authorization is the payer's doing for every relay, x402 included: the payer can cancel its own
 * nonce in the relay's block for free and make the relayer pay for a revert. Only a proven front-run (the indexer saw
 * the nonce's AuthorizationUsed directly followed by its Transfer into the router: somebody USED it to pay the router)
 * is not, and the x402 module lifts that ban when it claims the transfer (relay/lift-ban.ts).
 */
export function isPayerFault(reason: string | null): boolean {
  if (reason === null) return false;
  return PAYER_FAULTS.some((r) => r.test(reason));
}

/** How long a payer whose relay failed for a cause it controls is refused gasless (chain clock). */
export const PAYER_BAN_SECONDS = 86_400n;
