import { serializeErc6492Signature, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SIGNATURE_BYTES } from '../../src/modules/invitations/schemas.js';
import { verifyWalletSignature } from '../../src/modules/invitations/verify.js';
import { createFlow, type Flow } from '../helpers/flow.js';
import type { Harness } from '../helpers/harness.js';
import {
  createSafeCalldata,
  deploySafe,
  deploySafeStack,
  isDeployed,
  predictSafeAddress,
  safeInitializer,
  safeOwners,
  signSafeMessage,
  type SafeStack,
} from '../helpers/safe.js';

/**
 * Smart-wallet merchants against Safe's real contracts on anvil: a deployed Safe signs with ERC-1271, a
 * counterfactual one with ERC-6492, verified by the service on the invitation's chain.
 */
let flow: Flow;
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let stack: SafeStack;
let salt = 0n;
const fresh = () => privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  flow = await createFlow({ buyers: 0 });
  h = flow.h;
  p = await h.platform({ name: 'Acme Market' });
  stack = await deploySafeStack(flow.chain);
}, 120_000);
afterAll(async () => { await flow?.close(); });

let seq = 0;
async function invite() {
  const res = await h.request('POST', '/v1/merchants/invitations', {
    key: p.secretKey, body: { external_id: `sw_m_${++seq}`, suggested_name: 'Corner Bakery', chain_id: flow.chain.chainId, reserve_bps: 500 },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; token: string; external_id: string };
}

async function messageFor(token: string, wallet: Address): Promise<string> {
  const read = await h.request('GET', `/v1/merchants/invitations/${token}?wallet=${wallet}`);
  expect(read.status).toBe(200);
  return read.body.message as string;
}

const complete = (token: string, wallet: Address, signature: Hex, name = 'Safe Bakery') =>
  h.request('POST', `/v1/merchants/invitations/${token}/complete`, { body: { wallet, name, signature } });

async function expectRefused(token: string, wallet: Address, signature: Hex) {
  const merchants = await h.count('merchants');
  const res = await complete(token, wallet, signature);
  expect(res.status).toBe(422);
  expect(res.body.error).toMatchObject({ code: 'invalid_signature', param: 'signature' });
  expect(await h.count('merchants')).toBe(merchants);
}

/** A counterfactual 1-of-1 Safe: its predicted address and the factory call that would deploy it. */
async function counterfactualSafe(owner: Address) {
  const saltNonce = 1000n + ++salt;
  const initializer = safeInitializer(stack, [owner]);
  const address = await predictSafeAddress(flow.chain, stack, initializer, saltNonce);
  return { address, saltNonce, factoryData: createSafeCalldata(stack, initializer, saltNonce) };
}

describe('smart-wallet merchants (Safe on anvil)', () => {
  it('a deployed 1-of-1 Safe onboards with an ERC-1271 signature by its owner', async () => {
    const owner = fresh();
    const safe = await deploySafe(flow.chain, stack, [owner.address], ++salt);
    expect(await safeOwners(flow.chain, safe)).toEqual([owner.address]);
    const inv = await invite();
    const message = await messageFor(inv.token, safe);
    expect(message).toContain(safe);
    const signature = await signSafeMessage(owner, safe, flow.chain.chainId, message);
    const done = await complete(inv.token, safe, signature);
    expect(done.status).toBe(201);
    expect(done.body.merchant).toMatchObject({ external_id: inv.external_id, merchant_wallet: safe, state: 'active', reserve_bps: 500 });
    expect(done.body.invitation).toMatchObject({ state: 'completed', wallet: safe, merchant_id: done.body.merchant.id });
  });

  it('a counterfactual Safe onboards with an ERC-6492 signature and is still not deployed afterwards', async () => {
    const owner = fresh();
    const cf = await counterfactualSafe(owner.address);
    expect(await isDeployed(flow.chain, cf.address)).toBe(false);
    const inv = await invite();
    const message = await messageFor(inv.token, cf.address);
    const inner = await signSafeMessage(owner, cf.address, flow.chain.chainId, message);
    const signature = serializeErc6492Signature({ address: stack.factory, data: cf.factoryData, signature: inner });
    expect((signature.length - 2) / 2).toBeGreaterThan(65);
    expect(signature.length).toBeLessThanOrEqual(2 + 2 * MAX_SIGNATURE_BYTES);
    const done = await complete(inv.token, cf.address, signature);
    expect(done.status).toBe(201);
    expect(done.body.merchant).toMatchObject({ merchant_wallet: cf.address, state: 'active' });
    // verification ran the factory inside an eth_call only: nothing was deployed
    expect(await isDeployed(flow.chain, cf.address)).toBe(false);
    // the prediction was right: the factory deploys the Safe exactly there, and the same wrapped signature
    // still verifies once it exists (the validator then skips the factory call)
    expect(await deploySafe(flow.chain, stack, [owner.address], cf.saltNonce)).toBe(cf.address);
    expect(await verifyWalletSignature(() => h.services.chains.get(flow.chain.chainId).publicClient, cf.address, message, signature)).toBe(true);
  });

  it('refuses Safe signatures by a non-owner, for another wallet or message, and garbage with 422, writing nothing', async () => {
    const owner = fresh();
    const intruder = fresh();
    const safe = await deploySafe(flow.chain, stack, [owner.address], ++salt);
    const otherSafe = await deploySafe(flow.chain, stack, [owner.address], ++salt);
    const inv = await invite();
    const message = await messageFor(inv.token, safe);

    // a non-owner's SafeMessage signature
    await expectRefused(inv.token, safe, await signSafeMessage(intruder, safe, flow.chain.chainId, message));
    // the owner's signature for the same text but in the other Safe's domain
    await expectRefused(inv.token, safe, await signSafeMessage(owner, otherSafe, flow.chain.chainId, message));
    // the owner's signature over the other Safe's onboarding message, submitted for this Safe
    await expectRefused(inv.token, safe, await signSafeMessage(owner, safe, flow.chain.chainId, await messageFor(inv.token, otherSafe)));
    // the owner's signature over another invitation's message
    const other = await invite();
    await expectRefused(inv.token, safe, await signSafeMessage(owner, safe, flow.chain.chainId, await messageFor(other.token, safe)));
    // the right typed data on another chain id
    await expectRefused(inv.token, safe, await signSafeMessage(owner, safe, flow.chain.chainId + 1, message));
    // the owner's plain personal_sign is not the Safe's signature
    await expectRefused(inv.token, safe, await owner.signMessage({ message }));
    // garbage: 65 bytes, and a long blob
    await expectRefused(inv.token, safe, `0x${'11'.repeat(65)}`);
    await expectRefused(inv.token, safe, `0x${'ab'.repeat(700)}`);

    // ERC-6492: a non-owner's inner signature, and a factory call for a different Safe than the claimed wallet
    const cf = await counterfactualSafe(owner.address);
    const cfMessage = await messageFor(inv.token, cf.address);
    const wrap = (signature: Hex, data = cf.factoryData) => serializeErc6492Signature({ address: stack.factory, data, signature });
    await expectRefused(inv.token, cf.address, wrap(await signSafeMessage(intruder, cf.address, flow.chain.chainId, cfMessage)));
    const elsewhere = await counterfactualSafe(owner.address);
    await expectRefused(inv.token, cf.address, wrap(await signSafeMessage(owner, cf.address, flow.chain.chainId, cfMessage), elsewhere.factoryData));
    // a counterfactual address with an unwrapped (plain 1271) signature: no code there, nothing accepts it
    await expectRefused(inv.token, cf.address, await signSafeMessage(owner, cf.address, flow.chain.chainId, cfMessage));
    expect(await isDeployed(flow.chain, cf.address)).toBe(false);

    // a contract that is not a wallet (the router) cannot be claimed
    await expectRefused(inv.token, flow.chain.router, await owner.signMessage({ message: await messageFor(inv.token, flow.chain.router) }));

    // after all that, the owner's real Safe signature still completes it
    const done = await complete(inv.token, safe, await signSafeMessage(owner, safe, flow.chain.chainId, message));
    expect(done.status).toBe(201);
    expect(done.body.merchant.merchant_wallet).toBe(safe);
  });

  it('EOAs still onboard with personal_sign; a foreign EOA signature is 422 on a live chain', async () => {
    const account = fresh();
    const inv = await invite();
    const message = await messageFor(inv.token, account.address);
    await expectRefused(inv.token, account.address, await fresh().signMessage({ message }));
    // the wallet's own signature over another invitation's message does not transfer
    const other = await invite();
    await expectRefused(inv.token, account.address, await account.signMessage({ message: await messageFor(other.token, account.address) }));
    const done = await complete(inv.token, account.address, await account.signMessage({ message }));
    expect(done.status).toBe(201);
    expect(done.body.merchant.merchant_wallet).toBe(account.address);
  });

  it(`bounds the signature at ${MAX_SIGNATURE_BYTES} bytes of hex`, async () => {
    const inv = await invite();
    const wallet = fresh().address;
    for (const signature of [`0x${'ab'.repeat(MAX_SIGNATURE_BYTES + 1)}`, '0x', '0xabc', `0x${'zz'.repeat(65)}`]) {
      const res = await complete(inv.token, wallet, signature as Hex);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_failed' });
    }
    // at the bound it is read and verified (and refused as garbage)
    await expectRefused(inv.token, wallet, `0x${'ab'.repeat(MAX_SIGNATURE_BYTES)}`);
  });
});
