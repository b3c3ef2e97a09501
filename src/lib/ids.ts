import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string from rejection-sampled random bytes (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'plt' | 'mch' | 'inv' | 'ord' | 'cs' | 're' | 'we' | 'evt' | 'key' | 'stl' | 'dlv' | 'req';
/** Public identifiers: 20 base62 chars ≈ 119 bits; not secrets, only unguessable enough to not enumerate. */
export const newId = (prefix: IdPrefix) => `${prefix}_${randomBase62(20)}`;

export type SecretPrefix = 'sk_live' | 'pk_live' | 'moi_live' | 'cs_live' | 'whsec';
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
