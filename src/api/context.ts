import type { Logger } from '../lib/logger.js';
import type { Services } from '../services.js';

/** Who is calling. Resolved once per request by middleware/auth.ts; routes declare what they accept. */
export type Principal =
  | { kind: 'secret'; platformId: string; keyId: string }
  | { kind: 'publishable'; platformId: string; keyId: string }
  | { kind: 'session'; userId: string; sessionId: string; platformId: string | null }
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
