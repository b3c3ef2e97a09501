/**
 * The SDK's x402 paywall against the running service on the devnet (anvil, Circle's FiatTokenV2_2, the router):
 * the paid Hono route of examples/x402-paid-endpoint, served over HTTP by this process, is paid by the STOCK
 * client (`@x402/fetch` + `@x402/evm` 2.27.0 with a viem account, configured as agent.ts does and nothing more).
 * Checked: 200 with the handler's body, PAYMENT-RESPONSE, the order confirmed with its split exact to the base
 * unit on chain, and a replay of the same PAYMENT-SIGNATURE refused with nothing moved.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { erc20Abi, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { Trisettle } from '@trisettle/sdk';
import { decodeX402Header, type X402PaymentRequired } from '@trisettle/sdk/x402';
import { buildPaidApp } from '../../examples/x402-paid-endpoint/app.js';
import { payingFetch } from '../../examples/x402-paid-endpoint/agent.js';
import { makePublicClient } from '../../src/chain/clients.js';
import { platformKey, startService, type Service } from '../helpers/service-process.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 150_000 });

let service: Service;
let server: ServerType;
let paidUrl = '';
let trisettle: Trisettle;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;
const platformWallet = fresh();
const merchantWallet = fresh();
const agent = privateKeyToAccount(generatePrivateKey());

const balances = (addresses: Address[]) => {
  const client = makePublicClient({ rpcUrl: service.devnet.rpc_url, chainId: service.devnet.chain_id, devnet: true });
  return Promise.all(addresses.map((a) => client.readContract({ address: service.devnet.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [a] })));
};

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 45_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(async () => {
  service = await startService('x402-sdk');
  trisettle = new Trisettle({ secretKey: await platformKey(service.baseUrl, platformWallet), baseUrl: service.baseUrl });
  await trisettle.merchants.create({ external_id: 'weather', name: 'Weather Co', merchant_wallet: merchantWallet, chain_id: 84532 });
  await service.fundUsdc(agent.address, 5_000_000n);
  const app = buildPaidApp({ trisettle, merchantId: 'weather', price: '0.50' });
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  paidUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/forecast`;
});
afterAll(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await service?.stop();
});

describe('the SDK paywall on the devnet, paid by the stock x402 client', () => {
  it('answers 402 for a fresh order of the merchant, payable in the devnet USDC to the router', async () => {
    const res = await fetch(paidUrl);
    expect(res.status).toBe(402);
    const pr = decodeX402Header<X402PaymentRequired>(res.headers.get('PAYMENT-REQUIRED')!);
    expect(await res.json()).toEqual(pr);
    expect(pr.resource.url).toBe(paidUrl);
    expect(pr.accepts).toHaveLength(1);
    expect(pr.accepts[0]).toMatchObject({ scheme: 'exact', network: 'eip155:84532', amount: '500000', asset: service.devnet.usdc, payTo: service.devnet.router });
  });

  it('pays 0.50 USDC: 200 with the handler\'s body, PAYMENT-RESPONSE, the order confirmed and split exactly on chain; a replay is refused', async () => {
    const sent: Headers[] = [];
    const recording = ((input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      sent.push(new Headers(req.headers));
      return fetch(req);
    }) as typeof globalThis.fetch;
    const treasury = service.devnet.service_treasury;
    const before = await balances([agent.address, merchantWallet, platformWallet, treasury, service.devnet.router]);

    const res = await payingFetch(agent, { usdc: service.devnet.usdc, fetch: recording })(paidUrl);
    const body = await res.json() as { forecast: string; paid_by: string; order_id: string; transaction: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ forecast: 'sunny, 21 °C', paid_by: agent.address });
    const receipt = decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!);
    expect(receipt).toMatchObject({ success: true, network: 'eip155:84532', payer: agent.address, transaction: body.transaction, amount: '500000' });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    const order = await until(() => trisettle.orders.retrieve(body.order_id), (o) => o.state === 'confirmed');
    expect(order).toMatchObject({ state: 'confirmed', amount: '0.50' });
    expect(order.paid_by?.toLowerCase()).toBe(agent.address.toLowerCase());
    const split = order.computed_split;
    const [agentAfter, merchantAfter, platformAfter, treasuryAfter, routerAfter] = await balances([agent.address, merchantWallet, platformWallet, treasury, service.devnet.router]);
    expect(before[0]! - agentAfter!).toBe(500_000n);
    expect(merchantAfter! - before[1]!).toBe(BigInt(split.merchant_available));
    expect(platformAfter! - before[2]!).toBe(BigInt(split.platform_fee));
    expect(treasuryAfter! - before[3]!).toBe(BigInt(split.service_fee));
    expect(routerAfter! - before[4]!).toBe(BigInt(split.reserve_hold));
    expect(BigInt(split.service_fee) + BigInt(split.platform_fee) + BigInt(split.merchant_gross)).toBe(500_000n);

    // The same PAYMENT-SIGNATURE again (a replay by anyone who saw it): refused, nothing moves, the handler does not run.
    const header = sent.map((h) => h.get('PAYMENT-SIGNATURE')).find(Boolean)!;
    const replay = await fetch(paidUrl, { headers: { 'PAYMENT-SIGNATURE': header } });
    expect(replay.status).toBe(402);
    expect(decodePaymentResponseHeader(replay.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: false });
    // Re-cased: the nonce's and the payer's hex letters in upper case, the signature too. Still one payment: no 200.
    const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    const upper = (h: string) => `0x${h.slice(2).toUpperCase()}`;
    payload.payload.authorization.nonce = upper(payload.payload.authorization.nonce);
    payload.payload.authorization.from = upper(payload.payload.authorization.from);
    payload.payload.signature = upper(payload.payload.signature);
    const recased = await fetch(paidUrl, { headers: { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify(payload)).toString('base64') } });
    expect(recased.status).not.toBe(200);
    expect((await recased.text())).not.toContain('sunny');
    expect((await balances([agent.address]))[0]).toBe(agentAfter);
  });
});
