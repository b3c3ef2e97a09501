import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import type { MiddlewareHandler } from 'hono';
import { AppError } from './lib/errors.js';
import type { AppEnv } from './api/context.js';
import { resolvePrincipal } from './api/middleware/auth.js';
import { onError, onNotFound } from './api/middleware/errors.js';
import { idempotency } from './api/middleware/idempotency.js';
import { createRateLimiter, credentialGate, limitByAddress } from './api/middleware/rate-limit.js';
import { limitPrincipals, platformPolicies } from './api/middleware/principal-limits.js';
import { limitRelayRefusals } from './api/middleware/relay-refusals.js';
import { requestId } from './api/middleware/request-id.js';
import { requestLog } from './api/middleware/request-log.js';
import { storableText } from './api/middleware/storable-text.js';
import { validationHook } from './api/openapi.js';
import { adminRoutes } from './api/routes/admin.js';
import { mountAuth } from './api/routes/auth.js';
import { relayRoutes } from './api/routes/relay.js';
import { depositRoutes } from './api/routes/deposits.js';
import { x402Routes } from './api/routes/x402.js';
import { checkoutRoutes } from './api/routes/checkout.js';
import { invitationRoutes } from './api/routes/invitations.js';
import { merchantRoutes } from './api/routes/merchants.js';
import { orderRoutes } from './api/routes/orders.js';
import { subscriptionRoutes } from './api/routes/subscriptions.js';
import { healthRoutes } from './api/routes/health.js';
import { keyRoutes } from './api/routes/keys.js';
import { eventRoutes } from './api/routes/events.js';
import { webhookRoutes } from './api/routes/webhooks.js';
import { meRoutes } from './api/routes/me.js';
import { platformRoutes } from './api/routes/platforms.js';
import { refundRoutes } from './api/routes/refunds.js';
import { settlementRoutes } from './api/routes/settlements.js';
import { balanceRoutes } from './api/routes/balance.js';
import { exportRoutes } from './api/routes/exports.js';
import { testHelperRoutes } from './api/routes/test-helpers.js';
import { requestLogRoutes } from './api/routes/request-logs.js';
import { timelineRoutes } from './api/routes/timelines.js';
import { mountDocs, mountOpenApiDocument } from './api/routes/docs.js';
import { mountWeb } from './api/routes/web.js';
import type { Services } from './services.js';

export const MAX_BODY_BYTES = 32 * 1024;

/** JSON only: a body in any other type is refused, which also closes the cross-site form-post door. */
const requireJson = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  if (['POST', 'PUT', 'PATCH'].includes(c.req.method)) {
    const length = c.req.header('content-length');
    const hasBody = length !== undefined ? length !== '0' : c.req.raw.body !== null;
    const type = c.req.header('content-type') ?? '';
    if (hasBody && !/^application\/json\b/i.test(type)) throw new AppError('unsupported_media_type');
  }
  await next();
};

/**
 * 413 past `maxBytes`. A declared Content-Length is checked from the header alone; only a body without one
 * (chunked) is counted as it streams, by Hono's bodyLimit. GET and HEAD carry no body here. Not touching
 * the body otherwise keeps @hono/node-server's fast path: it reads the body straight from the socket once,
 * instead of building a web Request and its stream for every request (bench: a fifth of a public read).
 */
function limitBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  const streamed = bodyLimit({ maxSize: maxBytes, onError: () => { throw new AppError('payload_too_large'); } });
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (!/^\d+$/.test(length) || Number(length) > maxBytes) throw new AppError('payload_too_large');
      return next();
    }
    return streamed(c, next);
  };
}

const metricsMiddleware = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const end = c.get('services').metrics.httpRequests.startTimer();
  await next();
  end({ method: c.req.method, route: c.req.routePath ?? 'unmatched', status: String(c.res.status) });
};

/** `now`: the rate limiter's clock (tests move it instead of sleeping). */
export function buildApp(services: Services, opts: { now?: () => number } = {}) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const { config } = services;
  const rates = config.rateLimits;
  const limiter = createRateLimiter({ now: opts.now });

  app.use('*', async (c, next) => {
    c.set('services', services);
    c.set('logger', services.logger);
    await next();
  });
  app.use('*', requestId());
  // Test clocks exist on the devnet only: elsewhere their routes answer exactly as a route that does not exist.
  if (config.env !== 'devnet') app.use('/v1/test_helpers/*', async (c) => onNotFound(c));
  app.use('*', metricsMiddleware());
  // X-Frame-Options DENY with the pages' frame-ancestors 'none' (api/csp.ts): no page of this service is framed.
  app.use('*', secureHeaders({ crossOriginEmbedderPolicy: false, contentSecurityPolicy: undefined, xFrameOptions: 'DENY' }));
  if (config.dashboardUrl !== config.publicBaseUrl) {
    app.use('/api/*', cors({ origin: config.dashboardUrl, credentials: true }));
    app.use('/v1/*', cors({ origin: config.dashboardUrl, credentials: true, allowHeaders: ['Content-Type', 'Authorization', 'Idempotency-Key'] }));
  }
  // Per client address, before anything reads a body or a row: the public reads and onboarding, sign-up and sign-in.
  const publicPolicy = { name: 'public', perSecond: rates.publicPerSecond, burst: rates.publicBurst };
  const byAddress = (methods: string[]) => limitByAddress(limiter, publicPolicy, config.trustProxyHops, methods);
  app.use('/v1/checkout/sessions/:token', byAddress(['GET']));
  app.use('/v1/checkout/sessions/:token/relay', byAddress(['POST']));
  // The relay endpoints' refusals in a stricter bucket of their own, per client address (relay-refusals.ts).
  const relayRefusals = { perMinute: config.relayRefusalsPerMinute, trustProxyHops: config.trustProxyHops, now: opts.now };
  app.use('/v1/checkout/sessions/:token/relay', limitRelayRefusals(relayRefusals));
  // x402: the public pay URL is read like the session (per address, CORS for any origin: agents in browsers too), and
  // its refused payments (402 with a PAYMENT-SIGNATURE) count in the relay refusal bucket; the facilitator
  // endpoints' refusals count per platform (below, after the principal).
  app.use('/x402/:token', cors({ origin: '*', allowHeaders: ['PAYMENT-SIGNATURE', 'Content-Type'], exposeHeaders: ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE'] }));
  app.use('/x402/:token', byAddress(['GET']));
  app.use('/x402/:token', limitRelayRefusals({ ...relayRefusals, methods: ['GET'], when: (c) => c.req.header('payment-signature') !== undefined }));
  // The subscription link's public read and authorization (its signature check may cost an eth_call: also bounded per link).
  app.use('/v1/subscriptions/authorize/:token', byAddress(['GET', 'POST']));
  app.use('/v1/merchants/invitations/:token', byAddress(['GET']));
  app.use('/v1/merchants/invitations/:token/complete', byAddress(['POST']));
  app.use('/openapi.json', byAddress(['GET']));
  // Every route that checks a password shares the sign-in bucket (those that are not used answer 404 after it).
  const authPolicy = { name: 'auth', perSecond: rates.authPerMinute / 60, burst: rates.authPerMinute };
  for (const path of ['/api/auth/sign-up/*', '/api/auth/sign-in/*', '/api/auth/verify-password', '/api/auth/change-password']) {
    app.use(path, limitByAddress(limiter, authPolicy, config.trustProxyHops, ['POST']));
  }
  const limit = limitBody(MAX_BODY_BYTES);
  app.use('/v1/*', limit);
  app.use('/api/*', limit);
  app.use('/_/*', limit);
  app.use('/v1/*', requireJson());
  app.use('/_/*', requireJson());
  for (const prefix of ['/v1/*', '/api/*', '/_/*']) app.use(prefix, storableText());
  // Invalid credentials per client address, counted before the key is looked up; then a bucket per principal.
  const gate = credentialGate(limiter, { name: 'credentials', perSecond: rates.publicPerSecond, burst: rates.publicBurst }, config.trustProxyHops);
  app.use('/v1/*', resolvePrincipal(gate));
  // Every request of a platform's principal, recorded off the request path (modules/request-logs/buffer.ts).
  app.use('/v1/*', requestLog());
  app.use('/v1/*', limitPrincipals(limiter, platformPolicies(
    (id) => services.database.db.selectFrom('platforms').select(['rate_limit_per_second', 'rate_limit_burst']).where('id', '=', id).executeTakeFirst(),
    rates, opts.now), { name: 'user', perSecond: rates.perSecond, burst: rates.burst }));
  // The secret-key relay's refusals count per platform (its backend relays for many buyers from one address).
  app.use('/v1/orders/:id/relay', limitRelayRefusals({ ...relayRefusals, by: 'caller' }));
  // x402 facilitator: per end client (the paywall's buyer, Trisettle-Client-Address) within the platform, and a platform total.
  app.use('/v1/x402/*', limitRelayRefusals({ ...relayRefusals, by: 'end-client' }));
  app.use('/_/*', resolvePrincipal(gate));
  app.use('/metrics', resolvePrincipal(gate));
  app.use('/v1/*', idempotency());

  mountAuth(app, services, authPolicy);

  app.route('/', healthRoutes);
  app.route('/', meRoutes);
  app.route('/', platformRoutes);
  app.route('/', keyRoutes);
  app.route('/', webhookRoutes);
  app.route('/', eventRoutes);
  app.route('/', timelineRoutes); // before merchantRoutes and orderRoutes, whose /{id} would not match /{id}/timeline anyway
  app.route('/', invitationRoutes); // before merchantRoutes: /v1/merchants/invitations is not a merchant id
  app.route('/', merchantRoutes);
  app.route('/', orderRoutes);
  app.route('/', checkoutRoutes);
  app.route('/', subscriptionRoutes);
  app.route('/', relayRoutes);
  app.route('/', depositRoutes);
  app.route('/', x402Routes);
  app.route('/', refundRoutes);
  app.route('/', settlementRoutes);
  app.route('/', balanceRoutes);
  app.route('/', exportRoutes);
  app.route('/', testHelperRoutes);
  app.route('/', requestLogRoutes);
  app.route('/', adminRoutes(services));

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http', scheme: 'bearer', description: 'Secret key sk_live_… (server side only)',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey', in: 'cookie', name: 'better-auth.session_token', description: 'Dashboard session cookie from /api/auth/sign-in/email',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'admin', {
    type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (operators only)',
  });
  mountOpenApiDocument(app, {
    openapi: '3.1.0',
    info: { title: 'Trisettle API', version: '1.0.0', description: 'Multi-party USDC settlement: platforms, sub-merchants, orders, hosted checkout, refunds, webhooks.' },
    servers: [{ url: config.publicBaseUrl }],
  });

  mountDocs(app, config.publicBaseUrl);
  mountWeb(app, services);
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}

export type App = ReturnType<typeof buildApp>;
