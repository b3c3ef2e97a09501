import fc from 'fast-check';
import { getAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { createPayOrderSigner, signPayOrder, type PayOrderMessage } from '../../src/chain/eip712.js';

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((a) => `0x${Buffer.from(a).toString('hex')}` as Hex);
const address = hex(20).map((h) => getAddress(h) as Address);
const uint = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
const message: fc.Arbitrary<PayOrderMessage> = fc.record({
  orderId: hex(32), token: address, amount: uint, payer: address, merchant: address, platform: address,
  serviceFee: uint, platformFee: uint, reserveHold: uint, deadline: uint, captureDeadline: uint,
});

describe('createPayOrderSigner (the hot-path signer with cached type hash and domain separator)', () => {
  it("signs exactly what viem's signTypedData signs, for random messages, chains and routers", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const fast = createPayOrderSigner(account);
    await fc.assert(fc.asyncProperty(message, fc.constantFrom(84532, 8453, 1), address, async (msg, chainId, router) => {
      expect(await fast(chainId, router, msg)).toBe(await signPayOrder(account, chainId, router, msg));
    }), { numRuns: 200 });
  });
});
