import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON-RPC proxy in front of anvil that injects faults: HTTP 500s, 429s with Retry-After, JSON-RPC
 * errors, provider-style "block range too large" errors for eth_getLogs over a span, slow answers, or no
 * upstream at all (connection refused while anvil restarts). Loopback only.
 */
export type FaultMode =
  | { kind: 'none' }
  | { kind: 'http500' }
  | { kind: 'http429' }
  | { kind: 'rpcError'; message?: string }
  | { kind: 'rangeLimit'; maxSpan: number }
  | { kind: 'flaky'; every: number }
  | { kind: 'down' };

export type RpcCall = { jsonrpc?: string; id: unknown; method: string; params?: unknown[] };
/** Rewrites of each call (alone or in a batch): a request before it goes upstream, or a result on its way back. */
export type ProxyHooks = {
  request?: (call: RpcCall) => RpcCall | { error: { code: number; message: string } };
  response?: (call: RpcCall, result: unknown) => unknown;
};

export async function startRpcProxy(upstream: string) {
  let target = upstream;
  let mode: FaultMode = { kind: 'none' };
  let hooks: ProxyHooks = {};
  let n = 0;
  const stats = { requests: 0, injected: 0, getLogsSpans: [] as number[] };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      stats.requests++;
      const raw = Buffer.concat(chunks).toString('utf8');
      let calls: { id: unknown; method: string; params?: unknown[] }[] = [];
      try {
        const parsed = JSON.parse(raw);
        calls = Array.isArray(parsed) ? parsed : [parsed];
      } catch {
        /* forward as is */
      }
      const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        stats.injected++;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      const rpcError = (code: number, message: string) => {
        const one = (c: { id: unknown }) => ({ jsonrpc: '2.0', id: c.id, error: { code, message } });
        return Array.isArray(JSON.parse(raw || 'null')) ? calls.map(one) : one(calls[0] ?? { id: null });
      };
      for (const c of calls) {
        if (c.method === 'eth_getLogs') {
          const p = (c.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
          if (p.fromBlock && p.toBlock && p.fromBlock.startsWith('0x') && p.toBlock.startsWith('0x')) stats.getLogsSpans.push(Number(BigInt(p.toBlock) - BigInt(p.fromBlock)) + 1);
        }
      }
      const m = mode;
      if (m.kind === 'http500') return reply(500, 'internal error');
      if (m.kind === 'http429') return reply(429, { jsonrpc: '2.0', id: calls[0]?.id ?? null, error: { code: 429, message: 'Too Many Requests' } }, { 'retry-after': '1' });
      if (m.kind === 'rpcError') return reply(200, rpcError(-32603, m.message ?? 'header not found'));
      if (m.kind === 'flaky' && ++n % m.every === 0) {
        stats.injected++;
        return reply(503, 'upstream unavailable');
      }
      if (m.kind === 'rangeLimit') {
        const tooWide = calls.some((c) => {
          if (c.method !== 'eth_getLogs') return false;
          const p = (c.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
          if (!p.fromBlock?.startsWith('0x') || !p.toBlock?.startsWith('0x')) return false;
          return BigInt(p.toBlock) - BigInt(p.fromBlock) + 1n > BigInt(m.maxSpan);
        });
        if (tooWide) return reply(200, rpcError(-32005, `query exceeds max block range ${m.maxSpan}`));
      }
      if (m.kind === 'down') {
        req.socket.destroy();
        stats.injected++;
        return;
      }
      if (calls.length > 0 && (hooks.request || hooks.response)) return forwardHooked(calls, Array.isArray(JSON.parse(raw || 'null')), res);
      try {
        const up = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw, signal: AbortSignal.timeout(10_000) });
        const text = await up.text();
        res.writeHead(up.status, { 'content-type': 'application/json' });
        res.end(text);
      } catch {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('bad gateway');
      }
    });
  });
  /** Each call through the hooks on its own (a batch's calls too: the service batches calls made together). */
  async function forwardHooked(originals: RpcCall[], batch: boolean, res: http.ServerResponse) {
    const one = async (original: RpcCall) => {
      const call = hooks.request ? hooks.request(original) : original;
      if ('error' in call) return { jsonrpc: '2.0', id: original.id, error: call.error };
      const up = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call), signal: AbortSignal.timeout(10_000) });
      const answer = (await up.json()) as { result?: unknown };
      if (hooks.response && 'result' in answer) answer.result = hooks.response(original, answer.result);
      return answer;
    };
    try {
      const answers = await Promise.all(originals.map(one));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(batch ? answers : answers[0]));
    } catch {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('bad gateway');
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    set(next: FaultMode) {
      mode = next;
      n = 0;
    },
    /** Rewrites (tests of finality tags and re-included logs); {} removes them. */
    hook(next: ProxyHooks) {
      hooks = next;
    },
    retarget(url: string) {
      target = url;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export type RpcProxy = Awaited<ReturnType<typeof startRpcProxy>>;
