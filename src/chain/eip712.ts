/**
 * EIP-712 messages the PaymentRouter verifies. The domain binds every signature to one chain id and one
 * router address, so a signature for Base Sepolia or for another deployment is useless elsewhere.
 * Field order is part of the type hash and must match contracts/src/IPaymentRouter.sol exactly.
 */
import { concat, encodeAbiParameters, getAddress, hashDomain, keccak256, stringToHex, type Address, type Hex, type LocalAccount } from 'viem';

export const ROUTER_DOMAIN_NAME = 'Trisettle PaymentRouter';
export const ROUTER_DOMAIN_VERSION = '1';

export const eip712DomainType = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

export const payOrderTypes = {
  PayOrder: [
    { name: 'orderId', type: 'bytes32' },
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'payer', type: 'address' },
    { name: 'merchant', type: 'address' },
    { name: 'platform', type: 'address' },
    { name: 'serviceFee', type: 'uint256' },
    { name: 'platformFee', type: 'uint256' },
    { name: 'reserveHold', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'captureDeadline', type: 'uint256' },
  ],
} as const;

export const refundOrderTypes = {
  RefundOrder: [
    { name: 'orderId', type: 'bytes32' },
    { name: 'refundId', type: 'bytes32' },
    { name: 'to', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export type PayOrderMessage = {
  orderId: Hex;
  token: Address;
  amount: bigint;
  payer: Address; // zero address = anyone may pay
  merchant: Address;
  platform: Address;
  serviceFee: bigint;
  platformFee: bigint;
  reserveHold: bigint;
  deadline: bigint; // unix seconds
  /** 0: captured when paid (automatic). Otherwise the payment is an authorization, capturable before this instant (unix seconds). */
  captureDeadline: bigint;
};

export type RefundOrderMessage = { orderId: Hex; refundId: Hex; to: Address; amount: bigint; deadline: bigint };

export type RouterDomain = { name: string; version: string; chainId: number; verifyingContract: Address };

/** The typed-data JSON the API returns as `eip712`: bigints as decimal strings, addresses checksummed. */
export type PayOrderJson = {
  domain: RouterDomain;
  primary_type: 'PayOrder';
  types: { EIP712Domain: typeof eip712DomainType; PayOrder: (typeof payOrderTypes)['PayOrder'] };
  message: { [K in keyof PayOrderMessage]: string };
};

export type RefundOrderJson = {
  domain: RouterDomain;
  primary_type: 'RefundOrder';
  types: { EIP712Domain: typeof eip712DomainType; RefundOrder: (typeof refundOrderTypes)['RefundOrder'] };
  message: { [K in keyof RefundOrderMessage]: string };
};

export function routerDomain(chainId: number, router: Address): RouterDomain {
  return {
    name: ROUTER_DOMAIN_NAME,
    version: ROUTER_DOMAIN_VERSION,
    chainId,
    verifyingContract: getAddress(router),
  };
}

/** On-chain id of a public id ("ord_…", "re_…", "stl_…"): keccak256 of its UTF-8 bytes. */
export function toBytes32Id(publicId: string): Hex {
  return keccak256(stringToHex(publicId));
}

export function signPayOrder(account: LocalAccount, chainId: number, router: Address, msg: PayOrderMessage): Promise<Hex> {
  return account.signTypedData({
    domain: routerDomain(chainId, router),
    types: payOrderTypes,
    primaryType: 'PayOrder',
    message: msg,
  });
}

const PAY_ORDER_FIELDS = payOrderTypes.PayOrder;
const PAY_ORDER_TYPEHASH = keccak256(stringToHex(`PayOrder(${PAY_ORDER_FIELDS.map((f) => `${f.type} ${f.name}`).join(',')})`));
const PAY_ORDER_ABI = [{ type: 'bytes32' }, ...PAY_ORDER_FIELDS.map((f) => ({ type: f.type }))];

/**
 * signTypedData for PayOrder without the per-order re-derivation viem does (type string, type hash, domain
 * separator, field-by-field validation): the type hash is computed once, the domain separator once per
 * (chain, router). An order then costs one static ABI encoding, two keccaks and the ECDSA signature
 * (bench/parts/sign.ts: ~3× less hashing per order). test/unit/pay-order-signer.test.ts checks it signs
 * exactly what viem's signTypedData signs, for random messages.
 */
export function createPayOrderSigner(account: LocalAccount) {
  const separators = new Map<string, Hex>();
  return (chainId: number, router: Address, msg: PayOrderMessage): Promise<Hex> => {
    const key = `${chainId}:${router}`;
    let separator = separators.get(key);
    if (!separator) {
      separator = hashDomain({ domain: { ...routerDomain(chainId, router), chainId: BigInt(chainId) }, types: { EIP712Domain: eip712DomainType } });
      separators.set(key, separator);
    }
    const struct = keccak256(encodeAbiParameters(PAY_ORDER_ABI, [PAY_ORDER_TYPEHASH, ...PAY_ORDER_FIELDS.map((f) => msg[f.name])]));
    return account.sign!({ hash: keccak256(concat(['0x1901', separator, struct])) });
  };
}

export function signRefundOrder(
  account: LocalAccount,
  chainId: number,
  router: Address,
  msg: RefundOrderMessage,
): Promise<Hex> {
  return account.signTypedData({
    domain: routerDomain(chainId, router),
    types: refundOrderTypes,
    primaryType: 'RefundOrder',
    message: msg,
  });
}

function stringify<T extends Record<string, bigint | string>>(msg: T): { [K in keyof T]: string } {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(msg)) {
    // Addresses are checksummed; bytes32 ids stay lower-case hex; amounts become decimal strings,
    // because JSON numbers lose precision above 2^53.
    out[key] = typeof value === 'bigint' ? value.toString(10) : /^0x[0-9a-fA-F]{40}$/.test(value) ? getAddress(value) : value;
  }
  return out as { [K in keyof T]: string };
}

/**
 * Typed data for the API's `eip712` field. `types` includes EIP712Domain so the object is valid input
 * for `eth_signTypedData_v4` (after renaming primary_type → primaryType); viem accepts it too. ethers v6
 * wants the domain type left out: `const { EIP712Domain, ...types } = json.types`.
 * A buyer turns `message` back into contract arguments with {@link payOrderFromJson}.
 */
export function payOrderJson(chainId: number, router: Address, msg: PayOrderMessage): PayOrderJson {
  return {
    domain: routerDomain(chainId, router),
    primary_type: 'PayOrder',
    types: { EIP712Domain: eip712DomainType, PayOrder: payOrderTypes.PayOrder },
    message: stringify(msg),
  };
}

export function refundOrderJson(chainId: number, router: Address, msg: RefundOrderMessage): RefundOrderJson {
  return {
    domain: routerDomain(chainId, router),
    primary_type: 'RefundOrder',
    types: { EIP712Domain: eip712DomainType, RefundOrder: refundOrderTypes.RefundOrder },
    message: stringify(msg),
  };
}

/** Inverse of payOrderJson's message: the struct to pass to `payOrder` / `signTypedData` (bigints back). */
export function payOrderFromJson(json: Pick<PayOrderJson, 'message'>): PayOrderMessage {
  const m = json.message;
  return {
    orderId: m.orderId as Hex,
    token: getAddress(m.token),
    amount: BigInt(m.amount),
    payer: getAddress(m.payer),
    merchant: getAddress(m.merchant),
    platform: getAddress(m.platform),
    serviceFee: BigInt(m.serviceFee),
    platformFee: BigInt(m.platformFee),
    reserveHold: BigInt(m.reserveHold),
    deadline: BigInt(m.deadline),
    // Orders stored before captureDeadline existed lack it (they were signed for an older router's type).
    captureDeadline: BigInt(m.captureDeadline ?? 0),
  };
}

export function refundOrderFromJson(json: Pick<RefundOrderJson, 'message'>): RefundOrderMessage {
  const m = json.message;
  return {
    orderId: m.orderId as Hex,
    refundId: m.refundId as Hex,
    to: getAddress(m.to),
    amount: BigInt(m.amount),
    deadline: BigInt(m.deadline),
  };
}
