import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/modules/idempotency/service.js';

const fp = (body: string, method = 'POST', path = '/v1/orders') => fingerprint(method, path, body);

describe('idempotency fingerprint', () => {
  it('ignores key order and whitespace: the same JSON is the same request', () => {
    const a = fp('{"amount":"10.00","merchant_id":"m1","metadata":{"a":1,"b":[1,2]}}');
    expect(fp('{"merchant_id":"m1","amount":"10.00","metadata":{"b":[1,2],"a":1}}')).toBe(a);
    expect(fp(' {\n  "metadata" : { "b" : [ 1 , 2 ] , "a" : 1 },\n  "amount": "10.00", "merchant_id":"m1" }\n')).toBe(a);
  });

  it('treats numerically equal JSON numbers and equal escapes as the same value', () => {
    expect(fp('{"n":1.0}')).toBe(fp('{"n":1}'));
    expect(fp('{"s":"\\u0041"}')).toBe(fp('{"s":"A"}'));
  });

  it('distinguishes any change of value, type, array order or nesting', () => {
    const base = fp('{"a":"1","b":[1,2],"c":{"d":true}}');
    for (const other of [
      '{"a":"2","b":[1,2],"c":{"d":true}}',
      '{"a":1,"b":[1,2],"c":{"d":true}}',
      '{"a":"1","b":[2,1],"c":{"d":true}}',
      '{"a":"1","b":[1,2],"c":{"d":false}}',
      '{"a":"1","b":[1,2],"c":{"d":true,"e":null}}',
      '{"a":"1","b":[1,2]}',
      '{"a":"1","b":[1,2],"c":{"d":"true"}}',
    ]) {
      expect(fp(other)).not.toBe(base);
    }
  });

  it('is bound to the method and the path', () => {
    const body = '{"a":1}';
    expect(fp(body, 'POST', '/v1/orders')).not.toBe(fp(body, 'PUT', '/v1/orders'));
    expect(fp(body, 'POST', '/v1/orders')).not.toBe(fp(body, 'POST', '/v1/refunds'));
    expect(fp(body, 'POST', '/v1/a')).not.toBe(fp(body, 'POST', '/v1/a/'));
  });

  it('falls back to the raw text for a body that is not JSON', () => {
    expect(fp('')).toBe(fp(''));
    expect(fp('')).not.toBe(fp('{}'));
    expect(fp('{bad')).not.toBe(fp('{bad '));
  });

  it('is a 64-character hex SHA-256', () => {
    expect(fp('{}')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is invariant under any reordering of object keys (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 }), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(fp(JSON.stringify(reversed))).toBe(fp(JSON.stringify(obj)));
      }),
      { numRuns: 300 },
    );
  });
});
