/**
 * Gasless checkout on the zero-configuration devnet, as `npm start` runs it (`src/main.ts`: its anvil with
 * Circle's USDC, the relayer key from devnet-secrets.json funded with devnet ETH, the workers sending): a new
 * buyer with USDC and no ETH pays a hosted session by signing once; nothing is driven by hand.
 */
import { erc20Abi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Trisettle } from '@trisettle/sdk';
import { makePublicClient } from '../../src/chain/clients.js';
import { platformKey, startService, type Service } from '../helpers/service-process.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 150_000 });

let service: Service;
beforeAll(async () => {
  service = await startService('gasless-devnet');
});
afterAll(async () => service?.stop());

async function call(method: string, path: string, body?: unknown, key?: string) {
  const res = await fetch(`${service.baseUrl}${path}`, {
    method, headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('gasless on the devnet', () => {
  it('a zero-ETH buyer pays a hosted session with one signature; the workers relay and confirm it', async () => {
    const key = await platformKey(service.baseUrl, privateKeyToAccount(generatePrivateKey()).address);
    const merchantWallet = privateKeyToAccount(generatePrivateKey()).address;
    const m = await call('POST', '/v1/onboarding/merchants', { external_id: 'devnet-shop', name: 'Devnet Shop', merchant_wallet: merchantWallet, chain_id: 84532, reserve_bps: 0 }, key);
    expect(m.status).toBe(201);
    const buyer = privateKeyToAccount(generatePrivateKey());
    await service.fundUsdc(buyer.address, 10_000_000n);
    const s = await call('POST', '/v1/checkout/sessions', { merchant_id: 'devnet-shop', order_no: 'g-1', chain_id: 84532, token: 'USDC', amount: '4.20' }, key);
    expect(s.status).toBe(201);
    const pub = await call('GET', `/v1/checkout/sessions/${s.body.session_token}`);
    expect(pub.body.gasless).toMatchObject({ enabled: true, typed_data: { domain: { name: 'USDC', version: '2', verifyingContract: service.devnet.usdc } } });
    const td = pub.body.gasless.typed_data;
    const message = { ...td.message, from: buyer.address, value: BigInt(td.message.value), validAfter: BigInt(td.message.validAfter), validBefore: BigInt(td.message.validBefore) };
    const signature = await buyer.signTypedData({ domain: td.domain, types: td.types, primaryType: td.primaryType, message });
    // Through the SDK, as a page or backend would (public: no key needed for the session relay).
    const sdk = new Trisettle({ secretKey: key, baseUrl: service.baseUrl });
    const relay = await sdk.checkoutSessions.relay(s.body.session_token, {
      from: buyer.address, valid_after: td.message.validAfter, valid_before: td.message.validBefore, nonce: td.message.nonce as Hex, signature,
    });
    expect(relay).toMatchObject({ object: 'relay', state: 'pending', from: buyer.address });
    const posted = { body: relay };

    let read = pub;
    for (let i = 0; i < 120 && read.body.state !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 500));
      read = await call('GET', `/v1/checkout/sessions/${s.body.session_token}`);
    }
    expect(read.body).toMatchObject({ state: 'completed', order: { state: 'confirmed' }, gasless: { relay: { id: posted.body.id, state: expect.stringMatching(/submitted|succeeded/) } } });
    const client = makePublicClient({ rpcUrl: service.devnet.rpc_url, chainId: 84532, devnet: true });
    const balance = (who: Address) => client.readContract({ address: service.devnet.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
    expect(await balance(buyer.address)).toBe(10_000_000n - 4_200_000n);
    expect(await balance(merchantWallet)).toBe(BigInt(pub.body.order.computed_split.merchant_available));
    expect(await client.getBalance({ address: buyer.address })).toBe(0n);
    expect((await sdk.orders.retrieveRelay(pub.body.order.id)).id).toBe(relay.id);
    expect((await sdk.orders.gaslessUsage()).days[0]).toMatchObject({ relays: 1 });
  });
});
