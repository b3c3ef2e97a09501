import type { MiddlewareHandler } from 'hono';
import { newId } from '../../lib/ids.js';
import { accessLogger, redactSecrets } from '../../lib/logger.js';
import type { AppEnv } from '../context.js';

const SAFE_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** Every response carries X-Request-Id; a caller's own id is kept when it is safe to echo. */
export const requestId = (): MiddlewareHandler<AppEnv> => async (c, next) => {
  const incoming = c.req.header('x-request-id');
  const id = incoming && SAFE_ID.test(incoming) ? incoming : newId('req');
  c.set('requestId', id);
  c.header('X-Request-Id', id); // every response built through the context (c.json, errors) gets it
  const started = performance.now();
  await next();
  // A Response built elsewhere (better-auth's handler) did not see the prepared header. Setting it on the
  // headers, not with c.header(): after the response is final, c.header() rebuilds the whole Response as a
  // web stream (bench: a tenth of a cached public read).
  const headers = c.res.headers;
  if (!headers.has('x-request-id')) headers.set('X-Request-Id', id);
  const status = c.res.status;
  const log = accessLogger(c.get('logger'));
  const entry = { request_id: id, method: c.req.method, path: redactSecrets(c.req.path), status, ms: Math.round(performance.now() - started) };
  if (status >= 500) log.error(entry, 'request');
  else log.info(entry, 'request');
};
