import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { jsonBody, z } from '../openapi.js';
import type { AppEnv } from '../context.js';
import { contentSecurityPolicy } from '../csp.js';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS, WebhookEvent } from '../schemas/events.js';
import { EVENT_TYPES } from '../../modules/events/types.js';

/**
 * The API reference: GET /docs renders /openapi.json with Swagger UI served from node_modules
 * (swagger-ui-dist), so the page works with no network beyond this server. No inline script or style: the
 * initializer and the page's CSS are files of their own, under a CSP that allows neither (api/csp.ts).
 */
const UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
} as const;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Trisettle API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="stylesheet" href="/docs/assets/page.css">
</head>
<body>
  <p class="intro">Machine-readable document: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Webhook bodies are listed under <em>Webhooks</em> at the end.
  Guide from a key to a confirmed payment: <code>docs/integration.md</code>; typed client: <code>@trisettle/sdk</code>.</p>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`;

const PAGE_CSS = `body{margin:0} .swagger-ui .topbar{display:none} .intro{font:14px/1.5 system-ui,sans-serif;max-width:1460px;margin:16px auto 0;padding:0 20px;color:#3b4151}
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout'
});
`;

const WebhookHeaders = z.object({
  'x-webhook-id': z.string().openapi({ description: 'The event id (evt_…), the same on every attempt: deduplicate on it' }),
  'x-webhook-timestamp': z.string().openapi({ description: 'Unix seconds when this attempt was signed' }),
  'x-webhook-signature': z.string().openapi({
    description: 'v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the endpoint secret>; during a secret roll two values: v1=<new>,v1=<old>',
  }),
});

/** The webhooks the service sends (OpenAPI 3.1 `webhooks`), one per event type, with their signed headers. */
function registerWebhooks(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.register('WebhookEvent', WebhookEvent);
  for (const type of EVENT_TYPES) {
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: type,
      tags: ['Webhook events'],
      summary: type,
      description: `${WEBHOOK_EVENT_DESCRIPTIONS[type]} Verify the signature over the raw body before parsing it; deliveries are at least once (deduplicate on \`id\`).`,
      request: { headers: WebhookHeaders, body: jsonBody(WEBHOOK_EVENTS[type]) },
      responses: {
        200: { description: 'Any 2xx within 15 s acknowledges the delivery; anything else (including 3xx) is retried. 410 disables the endpoint.' },
      },
    });
  }
}

type DocumentConfig = Parameters<OpenAPIHono<AppEnv>['getOpenAPI31Document']>[0];

/** Whether If-None-Match names this ETag (a list, weak forms and `*` included). */
function matches(ifNoneMatch: string | undefined, etag: string) {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * GET /openapi.json. The document is built on the first request (every route is registered by then) and kept:
 * building it walks every zod schema, ~60 ms of CPU, once per process instead of once per request. Served from
 * memory with a strong ETag; a client that sends it back in If-None-Match gets 304 and no body.
 */
export function mountOpenApiDocument(app: OpenAPIHono<AppEnv>, config: DocumentConfig) {
  let built: { body: string; etag: string } | null = null;
  const serve = (c: Context<AppEnv>) => {
    if (built === null) {
      const body = JSON.stringify(app.getOpenAPI31Document(config));
      built = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
    }
    const headers = { ETag: built.etag, 'Cache-Control': 'no-cache' };
    if (matches(c.req.header('if-none-match'), built.etag)) return c.body(null, 304, headers);
    return c.body(built.body, 200, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
  };
  app.get('/openapi.json', serve);
}

/** `publicBaseUrl`: the document's server, where "Try it out" sends requests. */
export function mountDocs(app: OpenAPIHono<AppEnv>, publicBaseUrl: string) {
  registerWebhooks(app);
  const files = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { body: readFileSync(path.join(UI_DIR, name)), type }]));
  files.set('init.js', { body: Buffer.from(INIT), type: 'text/javascript; charset=utf-8' });
  files.set('page.css', { body: Buffer.from(PAGE_CSS), type: 'text/css; charset=utf-8' });
  const csp = contentSecurityPolicy({ connect: [new URL(publicBaseUrl).origin], inlineStyles: false });
  app.get('/docs', (c) => c.html(PAGE, 200, { 'Content-Security-Policy': csp }));
  app.get('/docs/assets/:file', (c) => {
    const file = files.get(c.req.param('file'));
    if (!file) return c.notFound();
    return c.body(new Uint8Array(file.body), 200, { 'Content-Type': file.type, 'Cache-Control': 'public, max-age=3600' });
  });
}
