/**
 * Devnet conveniences an integrator does by hand once: an account and its platform (sign up, then
 * onboarding with the session cookie, as the dashboard does), which returns the secret key, and the
 * funded dev accounts `npm start` writes to DATA_DIR/devnet.json.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem';

export type DevnetJson = {
  chain_id: number;
  rpc_url: string;
  usdc: Address;
  router: Address;
  accounts: { address: Address; private_key: Hex }[];
};

export function readDevnet(file: string): DevnetJson {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DevnetJson;
  } catch (err) {
    throw new Error(`cannot read ${file} (written by \`npm start\` on the devnet; set DEVNET_JSON): ${(err as Error).message}`);
  }
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
