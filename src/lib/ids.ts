import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn from a pool refilled 4 KiB at a time: one randomFillSync per ~100 ids instead of one
 * per id (the syscall showed up in the order-creation profile). Every byte is used once.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Uniform base62 string from rejection-sampled random bytes (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += BASE62[b % 62];
  }
  return out;
}

export type IdPrefix = 'plt' | 'mch' | 'inv' | 'ord' | 'cs' | 're' | 'we' | 'evt' | 'key' | 'aud' | 'stl' | 'dlv' | 'req' | 'otx' | 'rly' | 'x402' | 'sub';
/** Public identifiers: 20 base62 chars ≈ 119 bits; not secrets, only unguessable enough to not enumerate. */
export const newId = (prefix: IdPrefix) => `${prefix}_${randomBase62(20)}`;

export type SecretPrefix = 'sk_live' | 'pk_live' | 'moi_live' | 'cs_live' | 'sub_live' | 'whsec';
/** Secrets: 32 base62 chars ≈ 190 bits (DESIGN asks ≥ 128). */
export const newSecret = (prefix: SecretPrefix) => `${prefix}_${randomBase62(32)}`;

export const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

/** Constant-time comparison of two hex digests or other equal-length strings. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}
