/**
 * x402 paywall for Hono. `hono` is a peer of this entry point only (types at build time, nothing at run time).
 *
 *   app.get('/report', x402Paywall({ client, merchantId: 'acme', price: '0.05' }), (c) => c.json({ paid_by: c.get('x402').payer }));
 */
import type { MiddlewareHandler } from 'hono';
import { createX402Paywall, type X402PaywallOptions, type X402Receipt } from './paywall.js';

export type X402Env = { Variables: { x402: X402Receipt } };

export function x402Paywall(options: X402PaywallOptions): MiddlewareHandler<X402Env> {
  const decide = createX402Paywall(options);
  return async (c, next) => {
    const decision = await decide({ method: c.req.method, url: c.req.url, header: (name) => c.req.header(name), clientAddress: peerOf(c.env) });
    if (!decision.paid) return c.json(decision.body as object, decision.status, decision.headers);
    c.set('x402', decision.receipt);
    await next();
    for (const [name, value] of Object.entries(decision.headers)) c.header(name, value);
  };
}

/** The TCP peer under @hono/node-server; elsewhere none (give `clientAddress` in the options). */
const peerOf = (env: unknown): string | undefined => (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;

export type { X402HttpRequest, X402PaywallOptions, X402Receipt } from './paywall.js';
