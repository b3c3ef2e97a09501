/**
 * Serves the paid API (app.ts) on PORT (default 4021). With no TRISETTLE_API_KEY, on the devnet, it creates a
 * platform and a merchant first (the devnet's account 1 is the merchant's wallet).
 *
 *   npx tsx examples/x402-paid-endpoint/server.ts
 */
import { serve } from '@hono/node-server';
import { Trisettle, TrisettleError } from '@trisettle/sdk';
import { apiBase, createDevnetPlatform, devnetFile, readDevnet, type DevnetJson } from '../platform-integration/devnet.js';
import { buildPaidApp } from './app.js';

const env = process.env;
const merchantId = env.MERCHANT_EXTERNAL_ID ?? 'demo-weather';

async function main() {
  let devnetInfo: DevnetJson | undefined;
  const devnet = () => (devnetInfo ??= readDevnet(devnetFile(env)));
  const baseUrl = apiBase(env, devnet);
  let secretKey = env.TRISETTLE_API_KEY;
  if (!secretKey) {
    ({ secretKey } = await createDevnetPlatform(baseUrl, devnet().accounts[2]!.address));
    console.log(`[server] created a devnet platform; its secret key (shown once): ${secretKey}`);
  }
  const trisettle = new Trisettle({ secretKey, baseUrl });
  try {
    await trisettle.merchants.retrieve(merchantId);
  } catch (err) {
    if (!(err instanceof TrisettleError) || err.status !== 404) throw err;
    const wallet = (env.MERCHANT_WALLET ?? devnet().accounts[1]!.address) as `0x${string}`;
    await trisettle.merchants.create({ external_id: merchantId, name: 'Demo Weather', merchant_wallet: wallet, chain_id: 84532 });
  }
  const app = buildPaidApp({ trisettle, merchantId, price: env.PRICE ?? '0.50' });
  const port = Number(env.PORT ?? 4021);
  serve({ fetch: app.fetch, port, hostname: env.HOST ?? '127.0.0.1' }, (info) => {
    console.log(`[server] paid endpoint: http://${env.HOST ?? '127.0.0.1'}:${info.port}/forecast (${env.PRICE ?? '0.50'} USDC)`);
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
