import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { headers: Record<string, string | string[] | undefined>; raw: string; body: { id: string; type: string; created_at: string; data: { object: Record<string, any> } } };

/**
 * A local merchant backend: receives webhooks at /hooks and serves tiny success and cancel pages the
 * checkout redirects to. Bound to 127.0.0.1 only.
 */
export class LocalMerchant {
  readonly received: Received[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        if (req.method === 'POST' && path === '/hooks') {
          const raw = Buffer.concat(chunks).toString('utf8');
          this.received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
          return;
        }
        if (path === '/success' || path === '/cancel') {
          const title = path === '/success' ? 'Thank you for your order' : 'Checkout cancelled';
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${title}</title></head><body style="font-family:sans-serif;padding:40px"><h1>${title}</h1><p>Harbor Market demo shop</p></body></html>`);
          return;
        }
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async waitFor(pred: (r: Received) => boolean, timeoutMs = 30_000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.received.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching webhook within ${timeoutMs} ms; got: ${this.received.map((r) => r.body.type).join(', ') || 'none'}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async stop() {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** Checks X-Webhook-Signature (v1=<hex HMAC-SHA256 of "<timestamp>.<rawBody>">) with the endpoint secret. */
export function verifySignature(r: Received, secret: string): boolean {
  const timestamp = String(r.headers['x-webhook-timestamp'] ?? '');
  const header = String(r.headers['x-webhook-signature'] ?? '');
  const expected = createHmac('sha256', secret).update(`${timestamp}.${r.raw}`).digest();
  return header.split(',').some((part) => {
    const [scheme, hex] = part.trim().split('=');
    if (scheme !== 'v1' || !hex) return false;
    const got = Buffer.from(hex, 'hex');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}
