import { z } from '@hono/zod-openapi';

/** The address is checked by the service (create.ts), so that every unusable one is the same 400 invalid_refund_address. */
export const DepositAddressRequest = z
  .object({
    refund_address: z.string().max(64).openapi({
      example: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      description: 'Where the deposit address returns funds (excess, late or short payments): the buyer\'s own address, never an exchange\'s shared deposit address. '
        + 'A 0x address (EIP-55 checksummed or all lowercase). Not the zero address, the router, the deposit factory, the token or the deposit itself (400 invalid_refund_address)',
    }),
  })
  .strict()
  .openapi('DepositAddressRequest');
