import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP receiver on 127.0.0.1 (port 0) for webhook tests. Records each request's raw body and
 * headers as it arrives; answers from a programmable queue of replies (status, delay, headers), then
 * with the default reply (200 unless changed).
 */
/** `remotePort`: the sender's side of the connection, so a test can tell which requests shared a socket. */
export type Received = { method: string; path: string; headers: http.IncomingHttpHeaders; rawBody: string; at: number; remotePort: number };
export type Reply = { status?: number; delayMs?: number; headers?: Record<string, string>; body?: string };

export async function startReceiver(defaultReply: Reply = { status: 200 }) {
  const received: Received[] = [];
  const queue: Reply[] = [];
  let fallback = defaultReply;
  const waiters: { n: number; resolve: () => void }[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), at: Date.now(), remotePort: req.socket.remotePort ?? 0 });
      for (const w of waiters.filter((x) => received.length >= x.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      const reply = queue.shift() ?? fallback;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { 'Content-Type': 'text/plain', ...(reply.headers ?? {}) });
        res.end(reply.body ?? 'ok');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    /** Replies for the next requests, in order. */
    reply(...replies: Reply[]) {
      queue.push(...replies);
    },
    setDefault(reply: Reply) {
      fallback = reply;
    },
    waitFor(n: number, timeoutMs = 5_000): Promise<void> {
      if (received.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`receiver got ${received.length} requests, expected ${n}`)), timeoutMs);
        waiters.push({ n, resolve: () => { clearTimeout(t); resolve(); } });
      });
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
