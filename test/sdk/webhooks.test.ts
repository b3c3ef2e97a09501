import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from '@trisettle/sdk';
import { Webhook } from 'standardwebhooks';
import { signatureHeader, standardSignatureHeader } from '../../src/modules/webhooks/sign.js';

const SECRET = 'whsec_4vB9mQ2xLk7TzR1nYp0cWd8eHs3JuAaF';
const OLD_SECRET = 'whsec_oldOLDold0ldo1dOLDoldOLDoldOLD0';
const NOW = 1_763_700_000;
const body = JSON.stringify({
  id: 'evt_1', type: 'order.confirmed', created_at: '2025-11-21T00:00:00.000Z',
  data: { object: { id: 'ord_1', object: 'order', state: 'confirmed', amount: '12.50', metadata: { cart: 'c-1' } } },
});

/** Headers exactly as the service's deliverer builds them (its own signer). */
const delivered = (raw: string, secrets: string[], ts = NOW) => ({
  'content-type': 'application/json',
  'x-webhook-id': 'evt_1',
  'x-webhook-timestamp': String(ts),
  'x-webhook-signature': signatureHeader(secrets, ts, raw),
});

function reasonOf(fn: () => unknown): WebhookVerificationReason {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).reason;
  }
  throw new Error('expected verification to fail');
}

describe('verifyWebhook', () => {
  it('accepts a body signed by the service and returns the typed event', () => {
    const event = verifyWebhook(body, delivered(body, [SECRET]), SECRET, { nowSeconds: NOW });
    expect(event.type).toBe('order.confirmed');
    if (event.type !== 'order.confirmed') throw new Error('narrowing');
    expect(event.data.object.metadata).toEqual({ cart: 'c-1' });
  });

  it('accepts the raw bytes, fetch Headers and header names in any case', () => {
    const h = delivered(body, [SECRET]);
    expect(verifyWebhook(Buffer.from(body), h, SECRET, { nowSeconds: NOW }).id).toBe('evt_1');
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(h), SECRET, { nowSeconds: NOW }).id).toBe('evt_1');
    const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(body, upper, SECRET, { nowSeconds: NOW }).id).toBe('evt_1');
  });

  it('during a secret roll accepts either signature of v1=<new>,v1=<old>, and either configured secret', () => {
    const h = delivered(body, [SECRET, OLD_SECRET]);
    expect(h['x-webhook-signature'].split(',')).toHaveLength(2);
    expect(verifyWebhook(body, h, SECRET, { nowSeconds: NOW }).id).toBe('evt_1');
    expect(verifyWebhook(body, h, OLD_SECRET, { nowSeconds: NOW }).id).toBe('evt_1');
    expect(verifyWebhook(body, delivered(body, [SECRET]), [OLD_SECRET, SECRET], { nowSeconds: NOW }).id).toBe('evt_1');
  });

  it('refuses a tampered body', () => {
    const h = delivered(body, [SECRET]);
    expect(reasonOf(() => verifyWebhook(body.replace('12.50', '1250.00'), h, SECRET, { nowSeconds: NOW }))).toBe('no_matching_signature');
    expect(reasonOf(() => verifyWebhook(`${body} `, h, SECRET, { nowSeconds: NOW }))).toBe('no_matching_signature');
  });

  it('refuses the wrong secret', () => {
    expect(reasonOf(() => verifyWebhook(body, delivered(body, [SECRET]), OLD_SECRET, { nowSeconds: NOW }))).toBe('no_matching_signature');
  });

  it('refuses an old timestamp, a future one, and a signature moved to a fresh timestamp', () => {
    const old = delivered(body, [SECRET], NOW - 301);
    expect(reasonOf(() => verifyWebhook(body, old, SECRET, { nowSeconds: NOW }))).toBe('timestamp_outside_tolerance');
    expect(verifyWebhook(body, old, SECRET, { nowSeconds: NOW, toleranceSeconds: 600 }).id).toBe('evt_1');
    expect(reasonOf(() => verifyWebhook(body, delivered(body, [SECRET], NOW + 301), SECRET, { nowSeconds: NOW }))).toBe('timestamp_outside_tolerance');
    // A captured (signature, body) replayed with a new timestamp: the timestamp is inside the MAC.
    const replay = { ...old, 'x-webhook-timestamp': String(NOW) };
    expect(reasonOf(() => verifyWebhook(body, replay, SECRET, { nowSeconds: NOW }))).toBe('no_matching_signature');
    expect(verifyWebhook(body, delivered(body, [SECRET], NOW - 300), SECRET, { nowSeconds: NOW }).id).toBe('evt_1');
  });

  it('refuses a missing signature or timestamp header, a malformed timestamp and no secret', () => {
    const { 'x-webhook-signature': _s, ...noSig } = delivered(body, [SECRET]);
    const { 'x-webhook-timestamp': _t, ...noTs } = delivered(body, [SECRET]);
    expect(reasonOf(() => verifyWebhook(body, noSig, SECRET, { nowSeconds: NOW }))).toBe('missing_signature');
    expect(reasonOf(() => verifyWebhook(body, noTs, SECRET, { nowSeconds: NOW }))).toBe('missing_timestamp');
    expect(reasonOf(() => verifyWebhook(body, {}, SECRET, { nowSeconds: NOW }))).toBe('missing_timestamp');
    expect(reasonOf(() => verifyWebhook(body, { ...noTs, 'x-webhook-timestamp': '17637e5' }, SECRET, { nowSeconds: NOW }))).toBe('invalid_timestamp');
    expect(reasonOf(() => verifyWebhook(body, delivered(body, [SECRET]), '', { nowSeconds: NOW }))).toBe('missing_secret');
    expect(reasonOf(() => verifyWebhook(body, delivered(body, [SECRET]), [], { nowSeconds: NOW }))).toBe('missing_secret');
  });

  it('ignores unknown versions and malformed values, and refuses a parsed body', () => {
    const h = delivered(body, [SECRET]);
    const good = h['x-webhook-signature'];
    expect(verifyWebhook(body, { ...h, 'x-webhook-signature': `v0=abc, v2=${'0'.repeat(64)},${good}` }, SECRET, { nowSeconds: NOW }).id).toBe('evt_1');
    expect(reasonOf(() => verifyWebhook(body, { ...h, 'x-webhook-signature': good.replace('v1=', 'v2=') }, SECRET, { nowSeconds: NOW }))).toBe('no_matching_signature');
    expect(reasonOf(() => verifyWebhook(body, { ...h, 'x-webhook-signature': 'v1=zz' }, SECRET, { nowSeconds: NOW }))).toBe('no_matching_signature');
    expect(reasonOf(() => verifyWebhook(JSON.parse(body) as never, h, SECRET, { nowSeconds: NOW }))).toBe('invalid_body');
  });

  it('refuses a correctly signed body that is not JSON', () => {
    expect(reasonOf(() => verifyWebhook('not json', delivered('not json', [SECRET]), SECRET, { nowSeconds: NOW }))).toBe('invalid_body');
  });

  it('signWebhook produces what the service sends, and any one-byte change fails', () => {
    fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 8, maxLength: 40 }), fc.nat(), (text, secret, at) => {
      const raw = JSON.stringify({ id: 'evt_p', type: 'merchant.created', created_at: 'x', data: { object: { text } } });
      const ts = NOW - (at % 300);
      const headers = signWebhook(raw, secret, { timestampSeconds: ts });
      expect(headers['x-webhook-signature']).toBe(signatureHeader([secret], ts, raw));
      expect(headers['webhook-signature']).toBe(standardSignatureHeader([secret], 'evt_test', ts, raw));
      expect(verifyWebhook(raw, headers, secret, { nowSeconds: NOW }).id).toBe('evt_p');
      const bytes = Buffer.from(raw);
      const i = at % bytes.length;
      bytes[i] = bytes[i]! ^ 0x01;
      expect(() => verifyWebhook(bytes, headers, secret, { nowSeconds: NOW })).toThrow(WebhookVerificationError);
    }), { numRuns: 200 });
  });

  it('signWebhook\'s Standard Webhooks headers verify with the standardwebhooks package and the same whsec_ secret', () => {
    const headers = signWebhook(body, SECRET, { eventId: 'evt_1' });
    expect(new Webhook(SECRET).verify(body, headers)).toMatchObject({ id: 'evt_1', type: 'order.confirmed' });
    expect(() => new Webhook(SECRET).verify(body.replace('12.50', '12.51'), headers)).toThrow();
  });
});
