/**
 * Offline check of an EOA's ERC-3009 TransferWithAuthorization signature (EIP-712 in the token's domain), with
 * nothing but BigInt: Keccak-256, the EIP-712 digest of the one type the `exact` scheme signs, and secp256k1
 * public-key recovery as the ecrecover precompile does it (FiatToken also refuses a high s and a v other than
 * 27 / 28). The SDK keeps no runtime dependency; this runs only on the paywall's refusal path and once per
 * presented payment. A signature that passes here is still checked by the service on the chain.
 */
import type { ExactAuthorization } from './screen.js';

const MASK = (1n << 64n) - 1n;
const ROTATIONS = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14].map(BigInt);
const ROUND_CONSTANTS = [
  '0000000000000001', '0000000000008082', '800000000000808a', '8000000080008000', '000000000000808b', '0000000080000001',
  '8000000080008081', '8000000000008009', '000000000000008a', '0000000000000088', '0000000080008009', '000000008000000a',
  '000000008000808b', '800000000000008b', '8000000000008089', '8000000000008003', '8000000000008002', '8000000000000080',
  '000000000000800a', '800000008000000a', '8000000080008081', '8000000000008080', '0000000080000001', '8000000080008008',
].map((h) => BigInt(`0x${h}`));
const rotl = (v: bigint, n: bigint) => (n === 0n ? v : ((v << n) | (v >> (64n - n))) & MASK);

function keccakF(s: bigint[]): void {
  for (const rc of ROUND_CONSTANTS) {
    const c = [0, 1, 2, 3, 4].map((x) => s[x]! ^ s[x + 5]! ^ s[x + 10]! ^ s[x + 15]! ^ s[x + 20]!);
    for (let i = 0; i < 25; i++) s[i] = s[i]! ^ c[(i + 4) % 5]! ^ rotl(c[(i + 1) % 5]!, 1n);
    const b = new Array<bigint>(25);
    for (let x = 0; x < 5; x++) for (let y = 0; y < 5; y++) b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(s[x + 5 * y]!, ROTATIONS[x + 5 * y]!);
    for (let i = 0; i < 25; i++) s[i] = b[i]! ^ (~b[(i % 5 + 1) % 5 + i - (i % 5)]! & MASK & b[(i % 5 + 2) % 5 + i - (i % 5)]!);
    s[0] = s[0]! ^ rc;
  }
}

/** Keccak-256 (Ethereum's, not SHA3-256: padding 0x01). */
export function keccak256(data: Uint8Array): Uint8Array {
  const rate = 136;
  const padded = new Uint8Array(Math.floor(data.length / rate + 1) * rate);
  padded.set(data);
  padded[data.length] = 0x01;
  padded[padded.length - 1]! |= 0x80;
  const s = new Array<bigint>(25).fill(0n);
  for (let off = 0; off < padded.length; off += rate) {
    for (let i = 0; i < rate / 8; i++) s[i] = s[i]! ^ Buffer.from(padded.subarray(off + i * 8, off + i * 8 + 8)).readBigUInt64LE();
    keccakF(s);
  }
  const out = Buffer.alloc(32);
  for (let i = 0; i < 4; i++) out.writeBigUInt64LE(s[i]!, i * 8);
  return out;
}

const word = (v: bigint): Buffer => Buffer.from(v.toString(16).padStart(64, '0'), 'hex');
const hex = (h: string): Buffer => Buffer.from(h.slice(2), 'hex');
const hashText = (t: string) => keccak256(Buffer.from(t, 'utf8'));
const DOMAIN_TYPE = hashText('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)');
const TRANSFER_TYPE = hashText('TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)');

export type TokenDomain = { name: string; version: string; chainId: bigint; verifyingContract: string };

/** The EIP-712 digest the payer signed: TransferWithAuthorization in the token's domain. */
export function transferDigest(domain: TokenDomain, a: ExactAuthorization): Uint8Array {
  const separator = keccak256(Buffer.concat([DOMAIN_TYPE, hashText(domain.name), hashText(domain.version), word(domain.chainId), word(BigInt(domain.verifyingContract))]));
  const struct = keccak256(Buffer.concat([TRANSFER_TYPE, word(BigInt(a.from)), word(BigInt(a.to)), word(BigInt(a.value)), word(BigInt(a.validAfter)),
    word(BigInt(a.validBefore)), hex(a.nonce)]));
  return keccak256(Buffer.concat([Buffer.from([0x19, 0x01]), separator, struct]));
}

// secp256k1, Jacobian coordinates (Z = 0 is the point at infinity).
const P = 2n ** 256n - 2n ** 32n - 977n;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const G: Point = [0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n, 0x483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8n, 1n];
type Point = [bigint, bigint, bigint];
const mod = (a: bigint, m = P) => ((a % m) + m) % m;

function pow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  for (b = mod(b, m); e > 0n; e >>= 1n, b = (b * b) % m) if (e & 1n) r = (r * b) % m;
  return r;
}
const inv = (a: bigint, m: bigint) => pow(a, m - 2n, m);

function double([x, y, z]: Point): Point {
  if (z === 0n || y === 0n) return [0n, 1n, 0n];
  const a = mod(x * x), b = mod(y * y), c = mod(b * b);
  const d = mod(2n * (mod((x + b) ** 2n) - a - c)), e = mod(3n * a), x3 = mod(e * e - 2n * d);
  return [x3, mod(e * (d - x3) - 8n * c), mod(2n * y * z)];
}

function add(p: Point, q: Point): Point {
  if (p[2] === 0n) return q;
  if (q[2] === 0n) return p;
  const z1z1 = mod(p[2] * p[2]), z2z2 = mod(q[2] * q[2]);
  const u1 = mod(p[0] * z2z2), u2 = mod(q[0] * z1z1), s1 = mod(p[1] * q[2] * z2z2), s2 = mod(q[1] * p[2] * z1z1);
  if (u1 === u2) return s1 === s2 ? double(p) : [0n, 1n, 0n];
  const h = mod(u2 - u1), i = mod(4n * h * h), j = mod(h * i), r = mod(2n * (s2 - s1)), v = mod(u1 * i);
  const x3 = mod(r * r - j - 2n * v);
  return [x3, mod(r * (v - x3) - 2n * s1 * j), mod((mod((p[2] + q[2]) ** 2n) - z1z1 - z2z2) * h)];
}

function multiply(p: Point, k: bigint): Point {
  let r: Point = [0n, 1n, 0n];
  for (let bit = BigInt(k.toString(2).length - 1); bit >= 0n; bit--) {
    r = double(r);
    if ((k >> bit) & 1n) r = add(r, p);
  }
  return r;
}

/** The address that signed `digest` with a 65-byte (r, s, v) signature, as ecrecover would; null when it is malformed. */
export function recoverAddress(digest: Uint8Array, signature: string): string | null {
  const r = BigInt(`0x${signature.slice(2, 66)}`), s = BigInt(`0x${signature.slice(66, 130)}`), v = parseInt(signature.slice(130, 132), 16);
  if ((v !== 27 && v !== 28) || r === 0n || r >= N || s === 0n || s > N / 2n) return null;
  const y2 = mod(r ** 3n + 7n), y = pow(y2, (P + 1n) / 4n, P);
  if (mod(y * y) !== y2) return null;
  const ry = (y & 1n) === BigInt(v - 27) ? y : P - y;
  const rInv = inv(r, N), e = BigInt(`0x${Buffer.from(digest).toString('hex')}`) % N;
  const q = add(multiply(G, mod(-e * rInv, N)), multiply([r, ry, 1n], mod(s * rInv, N)));
  if (q[2] === 0n) return null;
  const zi = inv(q[2], P), zi2 = mod(zi * zi);
  const key = Buffer.concat([word(mod(q[0] * zi2)), word(mod(q[1] * zi2 * zi))]);
  return `0x${Buffer.from(keccak256(key)).subarray(12).toString('hex')}`;
}

/** True when the 65-byte `signature` is `from`'s own (an EOA's) over this authorization in this token domain. */
export const recoversTo = (domain: TokenDomain, a: ExactAuthorization, signature: string): boolean =>
  recoverAddress(transferDigest(domain, a), signature) === a.from.toLowerCase();
