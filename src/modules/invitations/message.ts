import { getAddress, type Address } from 'viem';

/** Longest platform name the message shows; a longer one is cut and ends in "…". */
export const MESSAGE_NAME_MAX = 64;

/**
 * A platform's display name as one harmless line: control and format characters (newlines, tabs, bidi
 * overrides, zero-width joiners) and line/paragraph separators become spaces, runs of spaces one space,
 * and the result is cut to MESSAGE_NAME_MAX characters (by code point). A platform chooses its name, so
 * without this it could write lines of its own into what the merchant signs ("Reserve: 0%").
 */
export function messageSafeName(name: string): string {
  const flat = name.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...flat];
  const cut = chars.length > MESSAGE_NAME_MAX ? `${chars.slice(0, MESSAGE_NAME_MAX - 1).join('').trimEnd()}…` : flat;
  return cut || '(unnamed platform)';
}

/** "5%" / "2.5%" / "0.01%": basis points as an exact percentage (no float arithmetic). */
export function bpsAsPercent(bps: number): string {
  const whole = Math.trunc(bps / 100);
  const frac = String(bps % 100).padStart(2, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}%` : `${whole}%`;
}

/**
 * The exact text a merchant signs with personal_sign (EIP-191) to prove they own the wallet.
 * It names the service's domain, the platform, the external_id, the wallet, the chain, the reserve the
 * merchant accepts and the invitation token, so a signature cannot be replayed for another service,
 * platform, merchant, wallet, chain, reserve or invitation. The server rebuilds it from its own records at
 * completion; the client's copy is never trusted. The platform name is the only text a third party chose:
 * it goes through messageSafeName, so every line below is the service's own.
 */
export function onboardingMessage(p: {
  domain: string;
  platformName: string;
  platformId: string;
  externalId: string;
  wallet: Address;
  chainId: number;
  reserveBps: number;
  token: string;
}): string {
  const name = messageSafeName(p.platformName);
  return [
    `Trisettle merchant onboarding at ${p.domain}`,
    '',
    `I own this wallet and accept payments from "${name}" settled by Trisettle at ${p.domain}.`,
    `I accept that ${bpsAsPercent(p.reserveBps)} of each payment to me is held in reserve before it is released to me.`,
    '',
    `Domain: ${p.domain}`,
    `Platform: ${name} (${p.platformId})`,
    `Merchant ID: ${p.externalId}`,
    `Wallet: ${getAddress(p.wallet)}`,
    `Chain ID: ${p.chainId}`,
    `Reserve: ${p.reserveBps} bps`,
    `Invitation: ${p.token}`,
  ].join('\n');
}

/** The host (and port, if any) of the URL merchants open: the dashboard's, where the onboarding page is. */
export function serviceDomain(config: { dashboardUrl: string }): string {
  return new URL(config.dashboardUrl).host;
}
