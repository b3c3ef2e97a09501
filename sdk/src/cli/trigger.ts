import { Trisettle } from '../client.js';
import { TrisettleError } from '../errors.js';
import type { CreateOrderParams, Order, WebhookEventType } from '../types.js';
import { approveCall, DevnetRpc, structAndBytesCall, type Hex } from './devnet-rpc.js';

export type TriggerOptions = {
  /** The devnet's RPC, asked for only by a type with a real flow (a test event needs none). */
  apiBase: string; apiKey: string; rpcUrl: () => string; out: (line: string) => void;
  /** Pays from this unlocked dev account; default the node's first (anvil's account 0, the banner's buyer). */
  payer?: string | undefined;
};
type Ctx = { client: Trisettle; rpc: DevnetRpc; payer: Hex; merchantWallet: Hex; chainId: CreateOrderParams['chain_id']; out: (line: string) => void };

/** The merchant the triggers sell as (created on first use, with anvil's second dev account as its wallet). */
export const CLI_MERCHANT = 'trisettle-cli';
const AMOUNT = '10.00';
const REFUND = '0.50'; // within the order's reserve (10 % of the merchant's share by default): paid by the service at once

const unique = () => `cli-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

async function waitFor<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function ensureMerchant(c: Ctx): Promise<void> {
  try {
    await c.client.merchants.retrieve(CLI_MERCHANT);
  } catch (err) {
    if (!(err instanceof TrisettleError && err.status === 404)) throw err;
    try {
      await c.client.merchants.create({ external_id: CLI_MERCHANT, name: 'Trisettle CLI test merchant', chain_id: c.chainId, merchant_wallet: c.merchantWallet });
      c.out(`created merchant ${CLI_MERCHANT} (wallet ${c.merchantWallet})`);
    } catch (raced) {
      if (!(raced instanceof TrisettleError && raced.code === 'conflict')) throw raced; // another trigger created it meanwhile
    }
  }
}

/** Approve + payOrder from the payer dev account, with the struct exactly as the service signed it; then waits for confirmed. */
async function pay(c: Ctx, order: Order): Promise<Order> {
  const { eip712 } = order;
  const fields = eip712.types[eip712.primary_type] as { name: string; type: string }[];
  const message = eip712.message as Record<string, string>;
  await c.rpc.transact(c.payer, message.token as Hex, await approveCall(c.rpc, order.pay_to as Hex, BigInt(message.amount!)));
  const tx = await c.rpc.transact(c.payer, order.pay_to as Hex, await structAndBytesCall(c.rpc, 'payOrder', fields, message, order.signature as Hex));
  c.out(`paid ${order.id} (${order.amount} USDC) from ${c.payer}: tx ${tx}`);
  return waitFor(`order ${order.id} confirmed`, () => c.client.orders.retrieve(order.id), (o) => o.state === 'confirmed');
}

async function confirmedOrder(c: Ctx): Promise<Order> {
  await ensureMerchant(c);
  const order = await c.client.orders.create({ merchant_id: CLI_MERCHANT, order_no: unique(), chain_id: c.chainId, token: 'USDC', amount: AMOUNT });
  return pay(c, order);
}

/** What each trigger does; every one ends when its event exists (so `listen` will forward it). */
export const TRIGGERS: Record<string, { what: string; run: (c: Ctx) => Promise<string> }> = {
  'merchant.created': {
    what: 'creates a merchant (a dev account as its wallet)',
    run: async (c) => {
      const m = await c.client.merchants.create({ external_id: unique(), name: 'CLI trigger merchant', chain_id: c.chainId, merchant_wallet: c.merchantWallet });
      return `merchant ${m.id}`;
    },
  },
  'order.confirmed': {
    what: `creates a ${AMOUNT} USDC order and pays it from a dev account`,
    run: async (c) => `order ${(await confirmedOrder(c)).id} confirmed`,
  },
  'checkout.session.completed': {
    what: `creates a ${AMOUNT} USDC checkout session and pays its order from a dev account`,
    run: async (c) => {
      await ensureMerchant(c);
      const s = await c.client.checkoutSessions.create({ merchant_id: CLI_MERCHANT, order_no: unique(), chain_id: c.chainId, token: 'USDC', amount: AMOUNT });
      await pay(c, await c.client.orders.retrieve(s.order_id));
      return `session ${s.id} completed`;
    },
  },
  'refund.completed': {
    what: `pays a ${AMOUNT} USDC order, then refunds ${REFUND} of it (from its reserve)`,
    run: async (c) => {
      const order = await confirmedOrder(c);
      const refund = await c.client.refunds.create({ order_id: order.id, amount: REFUND });
      const done = await waitFor(`refund ${refund.id} completed`, () => c.client.refunds.retrieve(refund.id), (r) => r.state !== 'pending');
      if (done.state !== 'completed') throw new Error(`refund ${refund.id} is ${done.state}`);
      return `refund ${refund.id} of order ${order.id} completed`;
    },
  },
};

/**
 * Every type the service sends (the API's TEST_EVENT_TYPES): typed against the generated WebhookEvent union, so a type
 * added to the service fails the SDK's typecheck until it is listed here.
 */
const SENT_TYPES: Record<WebhookEventType | 'test.ping', true> = {
  'test.ping': true, 'order.confirmed': true, 'order.failed': true, 'order.expired': true, 'order.authorized': true, 'order.voided': true,
  'order.underpaid': true, 'order.overpaid': true, 'payment.returned': true,
  'refund.completed': true, 'refund.failed': true, 'checkout.session.completed': true, 'checkout.session.expired': true,
  'subscription.created': true, 'subscription.activated': true, 'subscription.past_due': true, 'subscription.canceled': true,
  'merchant.created': true, 'settlement.completed': true, 'webhook_endpoint.disabled': true,
};
export const TRIGGER_TYPES = Object.keys(SENT_TYPES) as (keyof typeof SENT_TYPES)[];

/** The types with a real devnet flow, then those sent as test events (POST /v1/events/test); for the usage text. */
export function triggerHelp(): string {
  const tested = TRIGGER_TYPES.filter((t) => !TRIGGERS[t]);
  return [
    ...Object.entries(TRIGGERS).map(([type, t]) => `  ${type.padEnd(28)} ${t.what}`),
    '  sent as a test event (POST /v1/events/test: a sample object with test: true; no devnet needed):',
    ...tested.map((type) => `    ${type}`),
  ].join('\n');
}

async function emitTest(type: keyof typeof SENT_TYPES, o: TriggerOptions): Promise<void> {
  o.out(`Triggering ${type}: a test event (POST /v1/events/test; its object is a sample with test: true)`);
  const event = await new Trisettle({ secretKey: o.apiKey, baseUrl: o.apiBase }).events.emitTest({ type });
  o.out(`${type}: test event ${event.id}`);
}

/** `trisettle trigger <event>`: makes the platform emit that event: on the devnet through the public API, else as a test event. */
export async function trigger(event: string, o: TriggerOptions): Promise<void> {
  if (!(TRIGGER_TYPES as string[]).includes(event)) throw new Error(`cannot trigger "${event}": not a type the service sends; one of: ${TRIGGER_TYPES.join(', ')}`);
  const t = TRIGGERS[event];
  if (!t) return emitTest(event as keyof typeof SENT_TYPES, o);
  const rpc = new DevnetRpc(o.rpcUrl());
  const accounts = await rpc.accounts();
  const payer = o.payer ? accounts.find((a) => a.toLowerCase() === o.payer!.toLowerCase()) : accounts[0];
  if (!payer) throw new Error(`--payer ${o.payer} is not one of the node's unlocked dev accounts (${accounts.join(', ')})`);
  const ctx: Ctx = { client: new Trisettle({ secretKey: o.apiKey, baseUrl: o.apiBase }), rpc, payer, merchantWallet: accounts[1]!, chainId: (await rpc.chainId()) as Ctx['chainId'], out: o.out };
  o.out(`Triggering ${event}: ${t.what}`);
  o.out(`${event}: ${await t.run(ctx)}`);
}
