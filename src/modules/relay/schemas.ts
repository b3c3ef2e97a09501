import { z } from '@hono/zod-openapi';
import { AddressSchema } from '../../lib/schemas.js';

/** uint256 as a decimal string (no sign, no leading zeros beyond "0"). */
const Uint256String = z.string().max(78).regex(/^(0|[1-9][0-9]*)$/, 'must be a decimal integer string').refine((v) => BigInt(v) < 2n ** 256n, 'must fit in uint256');

/**
 * An ECDSA signature is 65 bytes; an ERC-1271 wallet's may be longer (solady's ERC-7739 wrapping, a Safe's
 * concatenated owner signatures, an ERC-6492 wrapper). 4 KB of bytes is far above any of those.
 */
export const SIGNATURE_MAX_BYTES = 4096;

export const RelayRequest = z
  .object({
    from: AddressSchema.openapi({ description: 'The USDC holder who signed ReceiveWithAuthorization (becomes the order\'s payer)' }),
    valid_after: Uint256String.openapi({ description: 'Exactly "0", as in the typed data offered', example: '0' }),
    valid_before: Uint256String.openapi({ description: 'Exactly the typed data\'s validBefore: the order deadline + 1 (unix seconds)', example: '1767225601' }),
    nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x-prefixed 32-byte hex').openapi({ description: 'hashPayOrder(order): typed_data.message.nonce' }),
    signature: z
      .string()
      .max(2 + 2 * SIGNATURE_MAX_BYTES)
      .regex(/^0x([0-9a-fA-F]{2})+$/, 'must be 0x-prefixed hex bytes')
      .refine((v) => v.length >= 2 + 2 * 65, 'must be at least 65 bytes')
      .openapi({ description: '65-byte ECDSA (r, s, v) from an EOA, or the wallet\'s ERC-1271 signature bytes (max 4096 bytes)' }),
  })
  .strict()
  .openapi('RelayRequest');

export const RelayStateSchema = z.enum(['pending', 'submitted', 'succeeded', 'failed']).openapi({
  description: 'pending: accepted, not broadcast yet; submitted: broadcast (tx_hash set); succeeded: mined at confirmation depth '
    + '(the order confirms through the indexer as always); failed: reverted or refused at send time (error says why; a new relay may be posted)',
});

export const Relay = z
  .object({
    id: z.string().openapi({ example: 'rly_…' }),
    object: z.literal('relay'),
    order_id: z.string(),
    state: RelayStateSchema,
    from: z.string(),
    tx_hash: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    gas_used: z.string().nullable().openapi({ description: 'Gas of the mined transaction (decimal string)' }),
    gas_cost_wei: z.string().nullable().openapi({ description: 'gas used × effective gas price, paid by the relayer (wei, decimal string)' }),
    created_at: z.string(),
  })
  .openapi('Relay');

const TypedField = z.object({ name: z.string(), type: z.string() });

export const GaslessTypedData = z
  .object({
    domain: z.object({ name: z.string(), version: z.string(), chainId: z.number().int(), verifyingContract: z.string() })
      .openapi({ description: 'Read from the token contract (name(), version(), chain id, address), checked against DOMAIN_SEPARATOR()' }),
    types: z.object({ ReceiveWithAuthorization: z.array(TypedField) }),
    primaryType: z.literal('ReceiveWithAuthorization'),
    message: z.object({
      from: z.null().openapi({ description: 'Filled in by the page: the buyer\'s address' }),
      to: z.string().openapi({ description: 'The router' }),
      value: z.string().openapi({ description: 'The order amount in base units' }),
      validAfter: z.string(),
      validBefore: z.string().openapi({ description: 'Order deadline + 1 (unix seconds)' }),
      nonce: z.string().openapi({ description: 'hashPayOrder(order): binds the authorization to this order' }),
    }),
  })
  .openapi('GaslessTypedData');

export const Gasless = z
  .object({
    enabled: z.boolean(),
    reason: z.string().nullable().openapi({
      description: 'Why not, when not enabled: disabled, relayer_unavailable, order_not_payable, amount_below_minimum (GASLESS_MIN_AMOUNT), '
        + 'payer_refused (the order\'s locked payer is banned after a relay it caused to fail), daily_cap_reached, budget_exhausted (the relayer\'s day), token_unsupported',
    }),
    typed_data: z.union([GaslessTypedData, z.null()]),
    relay: z.union([Relay, z.null()]), // the latest relay of this order, if any
  })
  .openapi('Gasless');

export const GaslessUsage = z
  .object({
    object: z.literal('gasless_usage'),
    enabled: z.boolean(),
    daily_cap: z.number().int().openapi({ description: 'Relays per platform per UTC day (chain clock): succeeded or in flight; a failed relay gives its slot back' }),
    min_amount: z.string().openapi({ description: 'The smallest order offered gasless (USDC, GASLESS_MIN_AMOUNT)', example: '0.50' }),
    relayer_gas_limit: z.string().openapi({ description: 'The most gas one relay may use (RELAYER_GAS_LIMIT)', example: '700000' }),
    days: z.array(z.object({
      day: z.string().openapi({ example: '2026-11-24' }),
      relays: z.number().int().openapi({ description: 'Relays holding a slot of the cap: succeeded or in flight' }),
      reverted: z.number().int().openapi({ description: 'Relays that failed: reverted on chain, or refused by the sender\'s simulation just before broadcast' }),
      refused: z.number().int().openapi({ description: 'Relay requests refused (gasless_refused) because the payer is banned' }),
      gas_cost_wei: z.string().openapi({ description: 'What the relayer paid for this platform\'s relays, reverted ones included (wei)' }),
    })),
  })
  .openapi('GaslessUsage');

export const OrderIdParams = z.object({ id: z.string().max(64) });
