import { z } from '@hono/zod-openapi';
import { getAddress, zeroAddress, type Address } from 'viem';
import { isWellFormedAddress, SUPPORTED_CHAIN_IDS } from './address.js';
import { AMOUNT_PATTERN } from './money.js';

/** Shared request-field schemas: one definition of "an address", "basis points", "an amount". */
export const AddressSchema = z
  .string()
  .max(42)
  .refine(isWellFormedAddress, 'must be a 0x-prefixed 20-byte hex address with a valid EIP-55 checksum')
  .refine((v) => v.toLowerCase() !== zeroAddress, 'must not be the zero address')
  .transform((v) => getAddress(v) as Address)
  .openapi({ type: 'string', example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', description: 'EVM address; returned checksummed' });

export const BpsSchema = z.number().int().min(0).max(10000).openapi({ description: 'Basis points, 0..10000 (1000 = 10%)', example: 1000 });

export const ChainIdSchema = z
  .number()
  .int()
  .refine((v) => (SUPPORTED_CHAIN_IDS as readonly number[]).includes(v), 'must be 84532 (Base Sepolia) or 8453 (Base)')
  .openapi({ type: 'integer', enum: [...SUPPORTED_CHAIN_IDS], example: 84532 });

export const AmountSchema = z
  .string()
  .max(40)
  .regex(AMOUNT_PATTERN, 'must be a decimal string like "12.50" with at most 6 decimals')
  .openapi({ example: '25.00', description: 'Human units (USDC), up to 6 decimals, > 0 and ≤ 1000000000' });

export const NameSchema = z.string().trim().min(1).max(200);
export const ExternalIdSchema = z.string().min(1).max(128).regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

export const METADATA_MAX_BYTES = 5 * 1024;
export const MetadataSchema = z
  .record(z.string().max(100), z.unknown())
  .refine((v) => Buffer.byteLength(JSON.stringify(v), 'utf8') <= METADATA_MAX_BYTES, 'must be at most 5 KB of JSON')
  .openapi({ type: 'object', additionalProperties: true, description: 'Free JSON object, up to 5 KB; echoed in webhooks' });

export const TokenSchema = z.literal('USDC').openapi({ description: 'Only USDC is supported' });
