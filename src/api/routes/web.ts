import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';
import { contentSecurityPolicy, walletRpcOrigins } from '../csp.js';
import type { Services } from '../../services.js';

const WEB_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/dist');

/**
 * The hosted pages (dashboard, /onboard/<token>, /checkout/<token>, /subscribe/<token>[/manage]) are one Vite build served by this
 * server. Client-side routes all answer with index.html, under a Content-Security-Policy (api/csp.ts) whose
 * connect-src names the wallet RPCs the pages read from.
 */
export function mountWeb(app: OpenAPIHono<AppEnv>, services: Services) {
  const index = path.join(WEB_DIST, 'index.html');
  if (!existsSync(index)) return;
  const built = readFileSync(index, 'utf8');
  // Read at the first page, not at mount: the devnet's chain is filled in once anvil is up.
  let html: string | null = null;
  const withNetwork = () => (html ??= built.replace('<head>', `<head>\n    ${networkMeta(services)}`));
  const csp = contentSecurityPolicy({ connect: walletRpcOrigins(services.config), inlineStyles: true });
  app.use('/assets/*', serveStatic({ root: path.relative(process.cwd(), WEB_DIST) }));
  const page = (c: Context) => c.html(withNetwork(), 200, { 'Content-Security-Policy': csp });
  app.get('/', page);
  app.get('/onboard/*', page);
  app.get('/checkout/*', page);
  app.get('/subscribe/*', page);
  app.get('/dashboard/*', page);
  app.get('/favicon.svg', serveStatic({ path: path.join(path.relative(process.cwd(), WEB_DIST), 'favicon.svg') }));
}

/**
 * What every page shows about where it runs (a meta tag, not a script: the CSP allows no inline script): the
 * devnet flag (a badge on every dashboard and hosted page) and the chains this deployment has an RPC for (the
 * only ones its forms offer). Chain ids and names only: nothing secret.
 */
function networkMeta(services: Services): string {
  const network = { devnet: services.config.env === 'devnet', chains: services.chains.list().map((c) => ({ chain_id: c.chainId, name: c.name })) };
  const content = JSON.stringify(network).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<meta name="trisettle-network" content="${content}" />`;
}
