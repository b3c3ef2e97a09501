import { randomUUID } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Address } from 'viem';

/** Server-side calls the tests make as a platform would (secret key) or as a signed-in account (cookie). */
export type Api = <T = any>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;

export function apiWith(baseUrl: string, auth: { key?: string; cookie?: string }): Api {
  return async (method, path, body) => {
    const headers: Record<string, string> = { accept: 'application/json', origin: baseUrl };
    if (auth.key) headers.authorization = `Bearer ${auth.key}`;
    if (auth.cookie) headers.cookie = auth.cookie;
    if (method !== 'GET') {
      headers['idempotency-key'] = randomUUID();
      if (body !== undefined) headers['content-type'] = 'application/json';
    }
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

export function randomAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

export function uniq(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export type Platform = { api: Api; secretKey: string; platformId: string; cookie: string; email: string; wallet: Address; name: string };

/** Signs up an account and onboards its platform through the API (the dashboard test does it in the browser). */
export async function createPlatform(baseUrl: string, opts: { name?: string; wallet?: Address; feeBps?: number; reserveBps?: number } = {}): Promise<Platform> {
  const email = `${uniq('e2e-')}@example.com`;
  const signUp = await fetch(`${baseUrl}/api/auth/sign-up/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ name: 'E2E Owner', email, password: 'correct horse battery staple' }),
  });
  if (!signUp.ok) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const cookie = signUp.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const wallet = opts.wallet ?? randomAddress();
  const name = opts.name ?? 'Acme Marketplace';
  const res = await apiWith(baseUrl, { cookie })('POST', '/v1/onboarding/self', {
    name,
    platform_wallet: wallet,
    chain_id: 84532,
    platform_fee_bps: opts.feeBps ?? 250,
    default_reserve_bps: opts.reserveBps ?? 1000,
  });
  if (res.status !== 201) throw new Error(`onboarding failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { api: apiWith(baseUrl, { key: res.body.secret_key }), secretKey: res.body.secret_key, platformId: res.body.platform_id, cookie, email, wallet, name };
}

export async function expectStatus<T>(p: Promise<{ status: number; body: T }>, status: number): Promise<T> {
  const res = await p;
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
