/**
 * A platform integration against Trisettle, end to end (see README.md beside this file).
 *
 *   serve mode (default): registers a webhook endpoint served by this process, makes sure a merchant
 *     exists, creates a checkout session and prints its hosted URL; then logs every verified webhook
 *     until Ctrl-C. Open the URL in a browser with a devnet wallet to pay.
 *   script mode (--script): the same, then pays the session itself as a devnet buyer and exits 0 once
 *     the verified order.confirmed webhook for that order has arrived.
 */
import { randomUUID } from 'node:crypto';
import type { Address, Hex } from 'viem';
import { Trisettle, TrisettleError, type WebhookEvent } from '@trisettle/sdk';
import { payCheckoutSession } from './buyer.js';
import { apiBase, createDevnetPlatform, devnetFile, readDevnet, type DevnetJson } from './devnet.js';
import { startReceiver } from './receiver.js';

const env = process.env;
const script = process.argv.includes('--script');
const log = (line: string) => console.log(`[platform] ${line}`);

async function main() {
  // The devnet's URLs and funded accounts, read only when needed (not at all with your own URL, key and wallets).
  let devnetInfo: DevnetJson | undefined;
  const devnet = () => (devnetInfo ??= readDevnet(devnetFile(env)));
  const baseUrl = apiBase(env, devnet);

  // 1. A secret key: yours (dashboard → API keys), or on the devnet a fresh account and platform.
  let secretKey = env.TRISETTLE_API_KEY;
  if (!secretKey) {
    const platformWallet = devnet().accounts[2]!.address;
    ({ secretKey } = await createDevnetPlatform(baseUrl, platformWallet));
    log(`created a devnet platform; its secret key (shown once): ${secretKey}`);
  }
  const trisettle = new Trisettle({ secretKey, baseUrl });

  // 2. The webhook receiver, then its endpoint (the secret comes back once, in this response).
  const confirmed = new Map<string, WebhookEvent>();
  const waiters = new Map<string, (e: WebhookEvent) => void>();
  const receiver = await startReceiver({
    port: Number(env.WEBHOOK_PORT ?? 4242),
    host: env.WEBHOOK_HOST ?? '127.0.0.1',
    log,
    onEvent: (event) => {
      if (event.type === 'order.confirmed') {
        const order = event.data.object; // typed: Order
        log(`order ${order.order_no} confirmed: ${order.amount} USDC paid by ${order.paid_by} in ${order.tx_hash}; metadata ${JSON.stringify(order.metadata)}`);
        confirmed.set(order.id, event);
        waiters.get(order.id)?.(event);
      } else if (event.type === 'checkout.session.completed') {
        log(`checkout session ${event.data.object.id} completed`);
      }
    },
  });
  const endpoint = await trisettle.webhookEndpoints.create({
    url: env.WEBHOOK_PUBLIC_URL ?? receiver.url,
    subscribed_events: ['order.confirmed', 'checkout.session.completed'],
    description: 'platform-integration example',
  });
  receiver.setSecret(endpoint.secret!);
  log(`webhook endpoint ${endpoint.id} → ${endpoint.url}`);

  // 3. The merchant, by the external_id you chose (created on first run, found afterwards).
  const externalId = env.MERCHANT_EXTERNAL_ID ?? 'demo-coffee';
  const merchant = await trisettle.merchants.retrieve(externalId).catch(async (err: unknown) => {
    if (!(err instanceof TrisettleError && err.code === 'not_found')) throw err;
    return trisettle.merchants.create({
      external_id: externalId,
      name: 'Demo Coffee Roasters',
      merchant_wallet: (env.MERCHANT_WALLET as Address | undefined) ?? devnet().accounts[1]!.address,
      chain_id: 84532,
      reserve_bps: 1000,
    });
  });
  log(`merchant ${merchant.external_id} (${merchant.id}) pays out to ${merchant.merchant_wallet}`);

  // 4. A hosted checkout session for one cart.
  const orderNo = `demo-${Date.now().toString(36)}`;
  const session = await trisettle.checkoutSessions.create({
    merchant_id: merchant.external_id,
    order_no: orderNo,
    chain_id: 84532,
    token: 'USDC',
    amount: env.AMOUNT ?? '12.50',
    metadata: { cart_id: randomUUID() },
    success_url: 'https://example.com/thanks',
    cancel_url: 'https://example.com/cart',
  });
  log(`checkout session ${session.id} for order ${orderNo}: ${session.url}`);

  if (!script) {
    log('waiting for webhooks (Ctrl-C to stop)');
    const stop = async () => {
      await trisettle.webhookEndpoints.delete(endpoint.id).catch(() => {});
      await receiver.close();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
    return;
  }

  // 5. Script mode: pay as a devnet buyer, from the public session read (what the hosted page uses).
  const waitForConfirmation = new Promise<WebhookEvent>((resolve) => {
    const seen = confirmed.get(session.order_id);
    if (seen) resolve(seen);
    else waiters.set(session.order_id, resolve);
  });
  const publicView = await trisettle.checkoutSessions.retrieve(session.session_token);
  const buyer = devnet().accounts[Number(env.BUYER_INDEX ?? 0)]!;
  const { payTx } = await payCheckoutSession({
    session: publicView, rpcUrl: env.TRISETTLE_RPC_URL ?? devnet().rpc_url, buyerPrivateKey: buyer.private_key as Hex, mine: true,
  });
  log(`paid as ${buyer.address}: ${payTx}`);

  const timeoutMs = Number(env.CONFIRM_TIMEOUT_MS ?? 90_000);
  const event = await Promise.race([
    waitForConfirmation,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no verified order.confirmed within ${timeoutMs} ms`)), timeoutMs).unref()),
  ]);
  const order = await trisettle.orders.retrieve(session.order_id);
  await trisettle.webhookEndpoints.delete(endpoint.id);
  await receiver.close();
  console.log(`RESULT ${JSON.stringify({
    event_id: event.id, event_type: event.type, order_id: order.id, order_state: order.state, tx_hash: order.tx_hash, pay_tx: payTx,
    session_id: session.id, endpoint_id: endpoint.id, merchant_id: merchant.id,
  })}`);
}

main().catch((err: unknown) => {
  if (err instanceof TrisettleError) console.error(`[platform] ${err.status} ${err.code}${err.param ? ` (${err.param})` : ''}: ${err.message} [request ${err.requestId}]`);
  else console.error('[platform]', err);
  process.exit(1);
});
