/**
 * Devnet conveniences an integrator does by hand once: an account and its platform (sign up, then
 * onboarding with the session cookie, as the dashboard does), which returns the secret key, and the
 * funded dev accounts and URLs `npm start` writes to devnet.json (TRISETTLE_DEVNET_JSON).
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Address, Hex } from 'viem';

export type DevnetJson = {
  chain_id: number;
  rpc_url: string;
  /** The API's URL (absent in a devnet.json written by an older service). */
  api_url?: string;
  usdc: Address;
  router: Address;
  accounts: { address: Address; private_key: Hex }[];
};

/** TRISETTLE_DEVNET_JSON, else ./.data/devnet.json: where `npm start` writes it when run from this directory's repository root. */
export const devnetFile = (env: NodeJS.ProcessEnv) => env.TRISETTLE_DEVNET_JSON ?? path.resolve('.data', 'devnet.json');

export function readDevnet(file: string): DevnetJson {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DevnetJson;
  } catch (err) {
    throw new Error(`cannot read ${file} (written by \`npm start\` on the devnet; set TRISETTLE_DEVNET_JSON, or TRISETTLE_API and TRISETTLE_API_KEY): ${(err as Error).message}`);
  }
}

/** The API's URL: TRISETTLE_API, else the devnet's api_url; no port is guessed. */
export function apiBase(env: NodeJS.ProcessEnv, devnet: () => DevnetJson): string {
  const url = env.TRISETTLE_API ?? devnet().api_url;
  if (!url) throw new Error(`set TRISETTLE_API (the API's URL, as the start-up banner prints it): ${devnetFile(env)} has no api_url`);
  return url;
}

/** Signs up a new account and creates its platform; returns the secret key (shown only in this response). */
export async function createDevnetPlatform(baseUrl: string, platformWallet: Address): Promise<{ secretKey: string; email: string }> {
  const email = `demo-${Date.now().toString(36)}-${randomUUID().slice(0, 8)}@example.com`;
  const password = `pw-${randomUUID()}`;
  // better-auth checks the Origin of cookie-based calls: a server-side script sends the service's own.
  const signUp = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: baseUrl },
    body: JSON.stringify({ name: 'Demo Platform Owner', email, password }),
  });
  if (!signUp.ok) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const cookie = signUp.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const onboard = await fetch(`${baseUrl}/v1/onboarding/self`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: baseUrl, Cookie: cookie, 'Idempotency-Key': randomUUID() },
    body: JSON.stringify({ name: 'Demo Marketplace', platform_wallet: platformWallet, chain_id: 84532, platform_fee_bps: 500, default_reserve_bps: 1000 }),
  });
  const body = (await onboard.json()) as { secret_key?: string };
  if (onboard.status !== 201 || !body.secret_key) throw new Error(`onboarding failed: ${onboard.status} ${JSON.stringify(body)}`);
  return { secretKey: body.secret_key, email };
}
