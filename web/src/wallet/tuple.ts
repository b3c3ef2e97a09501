import { paymentRouterAbi } from './abi';

type Component = { name: string; type: string };

/** The tuple fields of a router function's first argument, from the generated ABI (the one source of the layout). */
function tupleFields(functionName: 'payOrder' | 'refund'): readonly Component[] {
  const fn = paymentRouterAbi.find((f) => f.type === 'function' && f.name === functionName) as { inputs: readonly { components?: readonly Component[] }[] };
  return fn.inputs[0]!.components!;
}

/** An API `eip712.message` (uint fields as decimal strings) as the router's tuple: uints as bigint, the rest as strings. */
export function tupleFromMessage(functionName: 'payOrder' | 'refund', message: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { name, type } of tupleFields(functionName)) {
    const raw: unknown = message[name];
    if (typeof raw !== 'string' && typeof raw !== 'number') throw new Error(`The ${functionName === 'payOrder' ? 'order' : 'refund'} message is missing ${name}.`);
    out[name] = type.startsWith('uint') || type.startsWith('int') ? BigInt(raw) : String(raw);
  }
  return out;
}
