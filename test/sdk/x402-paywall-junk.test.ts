/**
 * One payment, one response; junk refused by the SDK before the service (issue 35, points 6 and 9). The paywall
 * against the recording stand-in of x402-fakes.ts: a re-cased copy of a paid PAYMENT-SIGNATURE is the same
 * payment (same Idempotency-Key, so the service's stored answer, refused as a replay); junk never reaches
 * /v1/x402/settle or /v1/x402/verify; the end client's address is passed on for the service's refusal bucket.
 */
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import express from 'express';
import fc from 'fast-check';
import { hashTypedData, keccak256 as viemKeccak, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { decodePaymentResponseHeader, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { createX402Paywall, decodeX402Header, encodeX402Header, type X402PaymentPayload, type X402PaymentRequired } from '@trisettle/sdk/x402';
import { x402Paywall as expressPaywall } from '@trisettle/sdk/x402/express';
import { keccak256, recoverAddress, transferDigest } from '../../sdk/src/x402/eoa-signature.js';
import { buyer, confirmedSettle, fakeService, honoApp, ROUTER, USDC_BASE_SEPOLIA } from './x402-fakes.js';

type Auth = { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };
const authOf = (p: X402PaymentPayload) => (p.payload as { authorization: Auth }).authorization;
const service = (svc: ReturnType<typeof fakeService>) => svc.count('/v1/x402/settle') + svc.count('/v1/x402/verify');
/** Upper-cases the hex letters after 0x (a different spelling of the same value). */
const upper = (h: string) => `0x${h.slice(2).toUpperCase()}`;

async function signed(fetchApp: typeof globalThis.fetch, url = 'http://shop.test/report', account = buyer) {
  const offered = decodeX402Header<X402PaymentRequired>((await fetchApp(url)).headers.get('PAYMENT-REQUIRED')!);
  return await x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(account) }] }).createPaymentPayload(offered as never) as unknown as X402PaymentPayload;
}
const present = (fetchApp: typeof globalThis.fetch, p: X402PaymentPayload | string) =>
  fetchApp('http://shop.test/report', { headers: { 'PAYMENT-SIGNATURE': typeof p === 'string' ? p : encodeX402Header(p) } });

describe('one payment, one response, however it is spelled', () => {
  it('a paid PAYMENT-SIGNATURE replayed byte for byte, or with its nonce, addresses and signature re-cased, is refused; one settle key', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp, handled } = honoApp(svc);
    const payload = await signed(fetchApp);
    expect((await present(fetchApp, payload)).status).toBe(200);
    const a = authOf(payload);
    expect(a.nonce).toMatch(/[a-f]/); // it has letters to re-case
    const recased = structuredClone(payload);
    Object.assign(authOf(recased), { nonce: upper(a.nonce), from: upper(a.from), to: a.to.toLowerCase() });
    (recased.payload as { signature: string }).signature = upper((payload.payload as { signature: string }).signature);
    for (const replay of [encodeX402Header(payload), encodeX402Header(recased)]) {
      const res = await present(fetchApp, replay);
      expect(res.status).toBe(402);
      expect(decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!)).toMatchObject({ success: false, errorReason: 'payment_already_used' });
    }
    const keys = svc.calls.filter((c) => c.path === '/v1/x402/settle').map((c) => c.idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(handled()).toBe(1);
  });

  it('a nonce of the wrong length (or not hex) is refused, not normalised into another payment', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp } = honoApp(svc);
    const payload = await signed(fetchApp);
    for (const nonce of [`${authOf(payload).nonce}00`, authOf(payload).nonce.slice(0, 64), `0x${'g'.repeat(64)}`, authOf(payload).nonce.slice(2)]) {
      const p = structuredClone(payload);
      authOf(p).nonce = nonce;
      expect(decodePaymentResponseHeader((await present(fetchApp, p)).headers.get('PAYMENT-RESPONSE')!).errorReason).toBe('invalid_exact_evm_payload');
    }
    expect(service(svc)).toBe(0);
  });
});

describe('junk is refused by the SDK before the service', () => {
  it('each malformed or mismatched payment is a 402 naming the x402 reason, with 0 settle or verify calls', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp, handled } = honoApp(svc);
    const good = await signed(fetchApp);
    const now = Math.floor(Date.now() / 1000);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const other = await signed(fetchApp, 'http://shop.test/report', stranger); // a valid signature, by someone else
    const edit = (f: (p: X402PaymentPayload) => void) => {
      const p = structuredClone(good);
      f(p);
      return p;
    };
    const cases: [string | X402PaymentPayload, RegExp | string][] = [
      ['!!not base64!!', /^invalid_payload/],
      [Buffer.from('{"x402Version":2,').toString('base64'), /^invalid_payload/],
      [edit((p) => { (p as { x402Version: number }).x402Version = 1; }), /x402Version must be 2/],
      [edit((p) => { p.accepted.scheme = 'upto'; }), 'payment_not_for_this_resource'],
      [edit((p) => { p.accepted.network = 'eip155:1'; }), 'payment_not_for_this_resource'],
      [edit((p) => { p.accepted.payTo = buyer.address; }), 'payment_not_for_this_resource'],
      [edit((p) => { authOf(p).to = stranger.address; }), 'invalid_exact_evm_recipient_mismatch'],
      [edit((p) => { authOf(p).value = '49999'; }), 'invalid_exact_evm_payload_authorization_value_mismatch'],
      [edit((p) => { authOf(p).value = '50000.0'; }), 'invalid_exact_evm_payload'],
      [edit((p) => { authOf(p).validBefore = String(now - 1); }), 'invalid_exact_evm_payload_authorization_valid_before'],
      [edit((p) => { authOf(p).validBefore = String(now + 300 + 600); }), 'invalid_exact_evm_payload_authorization_valid_before'],
      [edit((p) => { authOf(p).validAfter = String(now + 3600); }), 'invalid_exact_evm_payload_authorization_valid_after'],
      [edit((p) => { (p.payload as { signature: string }).signature = '0x'; }), 'invalid_exact_evm_signature'],
      [edit((p) => { (p.payload as { signature: string }).signature += '0'; }), 'invalid_exact_evm_signature'],
      [edit((p) => { (p.payload as { signature: string }).signature = `0x${'11'.repeat(4097)}`; }), /acceptable length|invalid_exact_evm_signature/],
      // 65 bytes that do not recover to `from`: another key's signature, a tampered one, a high-s twin.
      [edit((p) => { p.payload = { ...p.payload, signature: (other.payload as { signature: string }).signature }; }), 'invalid_exact_evm_signature'],
      [edit((p) => { authOf(p).validBefore = String(Number(authOf(p).validBefore) - 1); }), 'invalid_exact_evm_signature'],
      [edit((p) => { (p.payload as { signature: string }).signature = highS((good.payload as { signature: string }).signature); }), 'invalid_exact_evm_signature'],
    ];
    for (const [payload, reason] of cases) {
      const res = await present(fetchApp, payload);
      expect(res.status).toBe(402);
      const named = res.headers.get('PAYMENT-RESPONSE')
        ? decodePaymentResponseHeader(res.headers.get('PAYMENT-RESPONSE')!).errorReason
        : decodeX402Header<X402PaymentRequired>(res.headers.get('PAYMENT-REQUIRED')!).error;
      expect(named, JSON.stringify(payload).slice(0, 80)).toMatch(reason);
    }
    expect(service(svc)).toBe(0);
    expect(handled()).toBe(0);
    expect((await present(fetchApp, good)).status).toBe(200); // the genuine payment still passes
    expect(service(svc)).toBe(1);
  });

  it('a contract wallet\'s signature (ERC-6492 / ERC-1271, not 65 bytes) goes to the service, which checks it on chain', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: { success: false, errorReason: 'invalid_exact_evm_signature', transaction: '', network: 'eip155:84532' } });
    const { fetchApp } = honoApp(svc);
    const good = await signed(fetchApp);
    const wrapped = structuredClone(good);
    (wrapped.payload as { signature: string }).signature = `0x${'ab'.repeat(200)}${'6492'.repeat(16)}`;
    expect(decodePaymentResponseHeader((await present(fetchApp, wrapped)).headers.get('PAYMENT-RESPONSE')!).errorReason).toBe('invalid_exact_evm_signature');
    expect(svc.count('/v1/x402/settle')).toBe(1);
  });

  it('with contractWallets: true, a 65-byte signature that does not recover to `from` goes to the service too', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const { fetchApp } = honoApp(svc, { contractWallets: true });
    const good = await signed(fetchApp);
    const safe = structuredClone(good);
    authOf(safe).validBefore = String(Number(authOf(safe).validBefore) - 1); // the signature no longer recovers to from
    expect((await present(fetchApp, safe)).status).toBe(200);
    expect(svc.count('/v1/x402/settle')).toBe(1);
  });
});

/** The other valid-looking form of an ECDSA signature (s' = n - s, v flipped): ecrecover takes it, FiatToken does not. */
function highS(sig: string): Hex {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = BigInt(`0x${sig.slice(66, 130)}`);
  const v = parseInt(sig.slice(130), 16) === 27 ? '1c' : '1b';
  return `0x${sig.slice(2, 66)}${(n - s).toString(16).padStart(64, '0')}${v}`;
}

describe('the offline EOA check agrees with viem', () => {
  it('Keccak-256 of any bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => Buffer.from(keccak256(bytes)).toString('hex') === viemKeccak(bytes).slice(2)), { numRuns: 60 });
  });

  it('the TransferWithAuthorization digest and the signer recovered from a viem signature', async () => {
    const types = { TransferWithAuthorization: [
      { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
      { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] } as const;
    await fc.assert(fc.asyncProperty(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 1, max: 2 ** 31 }), async (value, nonceBytes, chainId) => {
      const account = privateKeyToAccount(generatePrivateKey());
      const nonce = `0x${Buffer.from(nonceBytes).toString('hex')}` as Hex;
      const domain = { name: 'USD Coin', version: '2', chainId, verifyingContract: USDC_BASE_SEPOLIA } as const;
      const message = { from: account.address, to: ROUTER, value, validAfter: 0n, validBefore: 1_900_000_000n, nonce } as const;
      const auth = { from: account.address.toLowerCase(), to: ROUTER.toLowerCase(), value: value.toString(), validAfter: '0', validBefore: '1900000000', nonce };
      const digest = transferDigest({ ...domain, chainId: BigInt(chainId), verifyingContract: USDC_BASE_SEPOLIA.toLowerCase() }, auth);
      expect(`0x${Buffer.from(digest).toString('hex')}`).toBe(hashTypedData({ domain, types, primaryType: 'TransferWithAuthorization', message }));
      const signature = await account.signTypedData({ domain, types, primaryType: 'TransferWithAuthorization', message });
      expect(recoverAddress(digest, signature)).toBe(account.address.toLowerCase());
      expect(recoverAddress(digest, highS(signature))).toBeNull();
    }), { numRuns: 8 });
  });
});

describe('the end client\'s address is passed to the service (its refusal bucket counts per end client)', () => {
  it('Express: req.ip, sent as Trisettle-Client-Address', async () => {
    const svc = fakeService();
    svc.answerSettle({ status: 200, body: confirmedSettle });
    const app = express();
    app.get('/report', expressPaywall({ client: svc.client, merchantId: 'acme', price: '0.05' }), (_req, res) => { res.json({ ok: true }); });
    const server: Server = createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/report`;
      const payload = await signed(fetch as typeof globalThis.fetch, url);
      expect((await fetch(url, { headers: { 'PAYMENT-SIGNATURE': encodeX402Header(payload) } })).status).toBe(200);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(svc.calls.find((c) => c.path === '/v1/x402/settle')!.clientAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });

  it('the clientAddress option, when it is an IP address; anything else is not sent', async () => {
    for (const [given, sent] of [['203.0.113.9', '203.0.113.9'], ['[2001:db8::1]', '2001:db8::1'], ['evil, 1.2.3.4', null], [undefined, null]] as const) {
      const svc = fakeService();
      svc.answerSettle({ status: 200, body: confirmedSettle });
      const paywall = createX402Paywall({ client: svc.client, merchantId: 'acme', price: '0.05', clientAddress: () => given });
      const req = (header?: string) => ({ method: 'GET', url: 'http://shop.test/r', header: (n: string) => (n === 'PAYMENT-SIGNATURE' ? header : undefined) });
      const offered = await paywall(req());
      if (offered.paid) throw new Error('expected 402');
      const payload = await x402Client.fromConfig({ schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] }).createPaymentPayload(offered.body as never);
      expect((await paywall(req(encodeX402Header(payload as never)))).paid).toBe(true);
      expect(svc.calls.find((c) => c.path === '/v1/x402/settle')!.clientAddress).toBe(sent);
    }
  });
});
