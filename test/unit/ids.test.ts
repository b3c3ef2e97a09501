import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newId, newSecret, randomBase62, safeEqual, sha256Hex, type IdPrefix, type SecretPrefix } from '../../src/lib/ids.js';

const BASE62 = /^[0-9A-Za-z]+$/;

describe('identifiers', () => {
  const prefixes: IdPrefix[] = ['plt', 'mch', 'inv', 'ord', 'cs', 're', 'we', 'evt', 'key', 'stl', 'dlv', 'req'];

  it.each(prefixes)('%s_ ids carry the prefix and 20 base62 characters', (prefix) => {
    const id = newId(prefix);
    expect(id.startsWith(`${prefix}_`)).toBe(true);
    const rest = id.slice(prefix.length + 1);
    expect(rest).toHaveLength(20);
    expect(rest).toMatch(BASE62);
  });

  it('does not repeat over many draws', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => newId('ord')));
    expect(seen.size).toBe(10_000);
  });
});

describe('secrets', () => {
  const prefixes: SecretPrefix[] = ['sk_live', 'pk_live', 'moi_live', 'cs_live', 'whsec'];

  it.each(prefixes)('%s_ secrets carry the prefix and ≥ 128 bits of base62 randomness', (prefix) => {
    const secret = newSecret(prefix);
    expect(secret.startsWith(`${prefix}_`)).toBe(true);
    const rest = secret.slice(prefix.length + 1);
    expect(rest).toMatch(BASE62);
    // log2(62) ≈ 5.954 bits per character.
    expect(rest.length * Math.log2(62)).toBeGreaterThanOrEqual(128);
    expect(rest).toHaveLength(32);
  });

  it('passes the shape API keys are authenticated against', () => {
    expect(newSecret('sk_live')).toMatch(/^sk_live_[0-9A-Za-z]{16,64}$/);
    expect(newSecret('pk_live')).toMatch(/^pk_live_[0-9A-Za-z]{16,64}$/);
  });
});

describe('randomBase62', () => {
  it('returns exactly the length asked for, from the base62 alphabet only', () => {
    for (const n of [1, 2, 7, 20, 32, 100, 1000]) {
      const s = randomBase62(n);
      expect(s).toHaveLength(n);
      expect(s).toMatch(BASE62);
    }
  });

  it('uses every one of the 62 characters, roughly uniformly (no modulo bias)', () => {
    const sample = randomBase62(62 * 2000);
    const counts = new Map<string, number>();
    for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 2000 each; σ ≈ 44. A modulo-biased generator over 256 would skew the first 8 chars by ~+25%.
    for (const n of counts.values()) expect(n).toBeGreaterThan(1700);
    for (const n of counts.values()) expect(n).toBeLessThan(2300);
  });
});

describe('hashing and comparison', () => {
  it('sha256Hex is the lowercase hex SHA-256 of the UTF-8 text', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe(createHash('sha256').update(Buffer.from('é', 'utf8')).digest('hex'));
  });

  it('safeEqual compares whole strings, including different lengths and multibyte text', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
    expect(safeEqual('é', 'e\u0301')).toBe(false);
  });
});
