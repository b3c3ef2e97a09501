/**
 * x402 paywall for Express (4 or 5). Express is not a dependency: the adapter uses only what every version has.
 *
 *   app.get('/report', x402Paywall({ client, merchantId: 'acme', price: '0.05' }), (req, res) => res.json({ paid_by: res.locals.x402.payer }));
 */
import { createX402Paywall, type X402PaywallOptions } from './paywall.js';

/** The parts of Express's request and response the adapter uses. */
export type ExpressLikeRequest = {
  method: string;
  protocol: string;
  originalUrl: string;
  /** The client's address (Express follows `trust proxy` for it). */
  ip?: string | undefined;
  get(name: string): string | undefined;
};
export type ExpressLikeResponse = {
  locals: Record<string, unknown>;
  status(code: number): ExpressLikeResponse;
  set(field: Record<string, string>): unknown;
  json(body: unknown): unknown;
};

export function x402Paywall(options: X402PaywallOptions) {
  const decide = createX402Paywall(options);
  return (req: ExpressLikeRequest, res: ExpressLikeResponse, next: (err?: unknown) => void): void => {
    // req.protocol and the Host header follow Express's `trust proxy` setting, as the URL the client used.
    const url = `${req.protocol}://${req.get('host') ?? 'localhost'}${req.originalUrl}`;
    decide({ method: req.method, url, header: (name) => req.get(name), clientAddress: req.ip }).then((decision) => {
      res.set(decision.headers);
      if (!decision.paid) {
        res.status(decision.status).json(decision.body);
        return;
      }
      res.locals.x402 = decision.receipt;
      next();
    }, next);
  };
}

export type { X402HttpRequest, X402PaywallOptions, X402Receipt } from './paywall.js';
