import type { OpenAPIHono } from '@hono/zod-openapi';
import { cloneRawRequest } from 'hono/request';
import { AppError } from '../../lib/errors.js';
import { CLIENT_ADDRESS_HEADER } from '../../modules/accounts/auth.js';
import type { Services } from '../../services.js';
import { clientAddress, peerAddress } from '../client-address.js';
import type { AppEnv } from '../context.js';
import { onNotFound } from '../middleware/errors.js';
import { rateLimitHeaders, type RatePolicy } from '../middleware/rate-limit.js';

/**
 * The better-auth routes the product uses: SPEC §4's four, all the dashboard calls (web/src/pages/dashboard).
 * better-auth mounts many more (social sign-in and its callback, account linking, provider tokens, session
 * listing, password, email and account changes, …) that nothing here offers: each answers 404 before better-auth
 * sees the request, so none is a door, and an unauthenticated caller cannot make it log at error level.
 */
export const AUTH_ROUTES_USED: ReadonlySet<string> = new Set(['POST /sign-up/email', 'POST /sign-in/email', 'POST /sign-out', 'GET /get-session']);

/**
 * /api/auth/*: better-auth's handler. The body may already have been read (and cached) by storableText: better-auth
 * gets a request rebuilt from it, carrying the client's address as this service worked it out (never a header the
 * client could write). `authPolicy`: the sign-in bucket, whose headers better-auth's own 429 is answered with.
 */
export function mountAuth(app: OpenAPIHono<AppEnv>, services: Services, authPolicy: RatePolicy) {
  const { config } = services;
  app.on(['GET', 'POST'], '/api/auth/*', async (c) => {
    if (!AUTH_ROUTES_USED.has(`${c.req.method} ${c.req.path.slice('/api/auth'.length)}`)) return onNotFound(c);
    const req = await cloneRawRequest(c.req);
    const address = clientAddress(peerAddress(c), c.req.header('x-forwarded-for'), config.trustProxyHops);
    if (address === null) req.headers.delete(CLIENT_ADDRESS_HEADER);
    else req.headers.set(CLIENT_ADDRESS_HEADER, address);
    const res = await services.auth.handler(req);
    if (res.status !== 429) return res;
    // better-auth's own limiter (a backstop to ours, counted in its table): the same answer as ours.
    const retry = Math.max(1, Number(res.headers.get('x-retry-after')) || 60);
    throw new AppError('rate_limited', `Too many requests: retry in ${retry} s.`, undefined, {
      ...rateLimitHeaders(authPolicy, { allowed: false, remaining: 0, resetSeconds: retry, retryAfterSeconds: retry }),
    });
  });
}
