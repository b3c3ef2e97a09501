import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Config } from './config.js';

type Fetch = (request: Request, env: unknown) => Response | Promise<Response>;

/**
 * The HTTP server on HOST:PORT (config.ts: 127.0.0.1 on the devnet, whose keys and admin token are well known;
 * 0.0.0.0 in production). Resolves once it listens, with the address it is bound to.
 */
export function listen(app: { fetch: Fetch }, config: Pick<Config, 'host' | 'port'>): Promise<{ server: ServerType; address: AddressInfo }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (address) => resolve({ server, address }));
    server.once('error', reject);
  });
}

/** Where this process reaches its own server: loopback when it listens on every interface. */
export function selfUrl(config: Pick<Config, 'host' | 'port'>, port: number = config.port): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
