import type { Logger } from '../lib/logger.js';
import type { Services } from '../services.js';

/**
 * Who is calling. Resolved once per request by middleware/auth.ts; routes declare what they accept.
 * `unverified`: a secret key recognised from memory whose revocation has not been read yet. Only the routes
 * listed in auth.ts get one, and they hand it to a service that checks the key in its own statement
 * (`callerOf`); `platformIdOf` refuses it, so no other code can act on it by mistake.
 */
export type Principal =
  | { kind: 'secret'; platformId: string; keyId: string; unverified?: true }
  | { kind: 'publishable'; platformId: string; keyId: string }
  | { kind: 'session'; userId: string; email: string; sessionId: string; platformId: string | null }
  | { kind: 'admin' }
  | { kind: 'public' };

export type PrincipalKind = Principal['kind'];

export type AppEnv = {
  Variables: {
    requestId: string;
    principal: Principal;
    services: Services;
    logger: Logger;
  };
};
