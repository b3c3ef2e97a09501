import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../../helpers/chain.js';
import { createPgDatabase, type PgDatabase } from './pg.js';
import { client, cookieOf, type HttpRes } from './service.js';

export const ADMIN = 'adm_reliability_token_0123456789';

/**
 * What the real service needs in production mode: a fresh PostgreSQL database, an anvil chain with the
 * router (the service's signer and operator authorised), and the environment that points at them.
 */
export async function startStack(opts: { buyers?: number; rpcUrl?: (chain: TestChain) => string } = {}) {
  const chain = await startTestChain({ buyers: opts.buyers ?? 3 });
  const { signerPrivateKey: signerKey, operatorPrivateKey: operatorKey } = await authoriseServiceKeys(chain);
  // The gasless relayer: any funded key (it needs no role on the router).
  const relayerKey = generatePrivateKey();
  await chain.anvil.setBalance({ address: privateKeyToAccount(relayerKey).address, value: 10n ** 21n });
  const startBlock = await chain.publicClient.getBlockNumber();
  const db: PgDatabase = await createPgDatabase();
  const env = (port: number, extra: Record<string, string> = {}): Record<string, string> => ({
    DATABASE_URL: db.url,
    RPC_URL_84532: opts.rpcUrl ? opts.rpcUrl(chain) : chain.rpcUrl,
    ROUTER_ADDRESS_84532: chain.router,
    SUBSCRIPTION_MANAGER_ADDRESS_84532: chain.subscriptionManager,
    USDC_ADDRESS_84532: chain.usdc,
    CONFIRMATIONS_84532: '1',
    // anvil names head − 32 `safe`: the depth alone keeps these tests quick (FINALITY is tested on its own).
    FINALITY_84532: 'latest',
    SIGNER_PRIVATE_KEY: signerKey,
    OPERATOR_PRIVATE_KEY: operatorKey,
    RELAYER_PRIVATE_KEY: relayerKey,
    SERVICE_TREASURY: chain.treasury,
    BETTER_AUTH_SECRET: 'reliability-secret-0123456789-abcdefghij',
    ADMIN_TOKEN: ADMIN,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'trisettle-rel-')),
    LOG_LEVEL: 'warn',
    ...extra,
  });
  return {
    chain,
    db,
    env,
    startBlock,
    async close() {
      await chain.stop();
      await db.drop();
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** Sign up, onboard a platform and create a merchant through the service's HTTP API. */
export async function onboardOverHttp(base: string, merchantWallet = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC') {
  const req = client(base);
  const origin = { origin: base };
  const email = `rel-${randomBytes(4).toString('hex')}@example.com`;
  const up = await req('POST', '/api/auth/sign-up/email', { body: { name: 'Reliability', email, password: 'correct horse battery' }, headers: origin });
  if (up.status !== 200) throw new Error(`sign-up: ${up.status} ${up.text}`);
  const cookie = cookieOf(up.headers);
  const platform = await req('POST', '/v1/onboarding/self', { cookie, headers: origin, body: { name: 'Reliable Market', platform_wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', chain_id: 84532, platform_fee_bps: 500, default_reserve_bps: 1000 } });
  if (platform.status !== 201) throw new Error(`onboarding: ${platform.status} ${platform.text}`);
  const key = platform.body.secret_key as string;
  const m = await req('POST', '/v1/onboarding/merchants', { key, body: { external_id: `m_${randomBytes(3).toString('hex')}`, name: 'Steady Goods', merchant_wallet: merchantWallet, chain_id: 84532, reserve_bps: 1000 } });
  if (m.status !== 201) throw new Error(`merchant: ${m.status} ${m.text}`);
  return { cookie, key, platformId: platform.body.platform_id as string, merchant: m.body as { id: string; external_id: string }, email };
}

export const expectStatus = (res: HttpRes, status: number) => {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text.slice(0, 300)}`);
  return res;
};
