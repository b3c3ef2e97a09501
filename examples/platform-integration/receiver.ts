/**
 * The platform's webhook endpoint: a plain node:http server. It reads the raw body (the signature
 * covers the exact bytes, so never parse before verifying), verifies it with the SDK, acknowledges with
 * 200 at once and handles each event id once (deliveries are at least once).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@trisettle/sdk';

export type Receiver = {
  url: string;
  /** Set once the endpoint is registered (the secret comes back from webhookEndpoints.create). */
  setSecret(secret: string): void;
  close(): Promise<void>;
};

const MAX_BODY = 256 * 1024;

export async function startReceiver(opts: {
  port: number;
  host: string;
  path?: string;
  onEvent: (event: WebhookEvent) => void | Promise<void>;
  log?: (line: string) => void;
}): Promise<Receiver> {
  const path = opts.path ?? '/webhooks/trisettle';
  const log = opts.log ?? ((line: string) => console.log(line));
  const seen = new Set<string>();
  let secret: string | undefined;

  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let event: WebhookEvent;
      try {
        if (!secret) throw new WebhookVerificationError('missing_secret', 'endpoint not registered yet');
        event = verifyWebhook(rawBody, req.headers, secret, { toleranceSeconds: 300 });
      } catch (err) {
        const reason = err instanceof WebhookVerificationError ? err.reason : 'error';
        log(`webhook refused: ${reason}`);
        res.writeHead(400, { 'Content-Type': 'text/plain' }).end(reason);
        return;
      }
      // Acknowledge first, work after: a slow handler must not make the service retry.
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      if (seen.has(event.id)) return;
      seen.add(event.id);
      log(`webhook verified: ${event.type} ${event.id}`);
      Promise.resolve(opts.onEvent(event)).catch((err) => log(`webhook handler failed: ${String(err)}`));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host}:${port}${path}`,
    setSecret: (s) => {
      secret = s;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
