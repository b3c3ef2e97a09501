import { betterAuth } from 'better-auth';
import { isAPIError } from 'better-auth/api';
import { trustedOrigins, type Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';

/** Set by app.ts on every request it hands better-auth: the client's address (see api/client-address.ts). */
export const CLIENT_ADDRESS_HEADER = 'x-trisettle-client-address';

/**
 * Accounts are better-auth's (email + password, database sessions) at /api/auth/*.
 * Security choices:
 * - Cookies are HttpOnly, SameSite=Lax, Secure outside devnet (a devnet on http://localhost must work).
 * - Sign-in is rate limited per client address, in the database so all instances share the count. The
 *   address is the TCP peer, or with TRUST_PROXY_HOPS=n the one n proxies back in X-Forwarded-For.
 * - better-auth refuses requests whose Origin is not trusted, which stops cross-site form posts.
 */
export function createAuth(config: Config, db: Db, secret: string, logger: Logger) {
  return betterAuth({
    appName: 'Trisettle',
    secret,
    baseURL: config.publicBaseUrl,
    basePath: '/api/auth',
    trustedOrigins: trustedOrigins(config),
    database: { db: db as never, type: 'postgres', transaction: true },
    emailAndPassword: { enabled: true, minPasswordLength: 10, maxPasswordLength: 128, autoSignIn: true },
    session: { expiresIn: 60 * 60 * 24 * 7, updateAge: 60 * 60 * 24 },
    rateLimit: {
      enabled: true,
      storage: 'database',
      window: 60,
      max: 300,
      customRules: {
        // RATE_LIMIT_AUTH_PER_MINUTE (default 10) per address, the same knob as the API's own auth bucket.
        '/sign-in/email': { window: 60, max: config.rateLimits.authPerMinute },
        '/sign-up/email': { window: 60, max: config.rateLimits.authPerMinute },
      },
    },
    advanced: {
      // Stated explicitly: better-auth turns its Origin/CSRF checks off by itself when NODE_ENV=test or
      // TEST is set, and a deployment's security must not depend on an environment variable's accident.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      useSecureCookies: config.env !== 'devnet',
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax' },
      // Only the header app.ts sets from the TCP peer (and TRUST_PROXY_HOPS): X-Forwarded-For as sent is the
      // client's own words, and a rate limit keyed by it is one the client chooses its way around.
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
    },
    telemetry: { enabled: false },
    // Without this hook better-auth prints every refused request (bad password, bad origin, …) with
    // console.error, past pino. Refusals are routine (debug); only its own 500s are errors.
    onAPIError: {
      onError: (err) => {
        if (isAPIError(err) && err.status !== 'INTERNAL_SERVER_ERROR') {
          logger.debug({ component: 'better-auth', status: err.status, code: (err.body as { code?: string } | undefined)?.code }, 'auth request refused');
        } else {
          logger.error({ component: 'better-auth', err }, 'auth error');
        }
      },
    },
    logger: {
      disabled: false,
      level: 'warn',
      log: (level, message) => logger[level]({ component: 'better-auth' }, message),
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
