import type { Address, Hex } from 'viem';
import type { TypedData } from '../../lib/types';

/** The PayOrder struct as the router's ABI wants it: the typed-data message with uint fields as bigint. */
export type PayOrderStruct = {
  orderId: Hex;
  token: Address;
  amount: bigint;
  payer: Address;
  merchant: Address;
  platform: Address;
  serviceFee: bigint;
  platformFee: bigint;
  reserveHold: bigint;
  deadline: bigint;
};

const FIELDS: (keyof PayOrderStruct)[] = ['orderId', 'token', 'amount', 'payer', 'merchant', 'platform', 'serviceFee', 'platformFee', 'reserveHold', 'deadline'];

export function toPayOrderStruct(eip712: TypedData): PayOrderStruct {
  const fields = eip712.types[eip712.primary_type] ?? eip712.types.PayOrder ?? [];
  const typeOf = new Map(fields.map((f) => [f.name, f.type]));
  const out: Record<string, unknown> = {};
  for (const name of FIELDS) {
    const raw = eip712.message[name];
    if (raw === undefined || raw === null) throw new Error(`The order message is missing ${name}.`);
    const type = typeOf.get(name) ?? (['amount', 'serviceFee', 'platformFee', 'reserveHold', 'deadline'].includes(name) ? 'uint256' : 'address');
    out[name] = type.startsWith('uint') || type.startsWith('int') ? BigInt(raw) : String(raw);
  }
  return out as PayOrderStruct;
}
