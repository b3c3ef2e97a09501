/**
 * The service under test, in its own process (so its RSS and CPU are its own and the load generator is
 * not on its event loop): the product's createServices + buildApp served by @hono/node-server, with one
 * bench-only route registered here and nowhere else. Logs go to stdout at info, as in production; the
 * parent discards stdout. Commands arrive over IPC: { id, cmd, args } → { id, ok, result | error }.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Address, type Hex } from 'viem';
import { createLogger } from '../../src/lib/logger.js';
import { newId } from '../../src/lib/ids.js';
import { createHarness } from '../../test/helpers/harness.js';
import { fakeChain, merchant } from '../../test/helpers/factories.js';
import { openLocation, type DbKind } from './db.js';
import { benchOrderRow, benchSigner, type OrderContext, type PaySigner } from './order-row.js';
import { closedLoop } from './util.js';

const kind = process.env.BENCH_DB_KIND as DbKind;
const database = openLocation({ kind, url: process.env.BENCH_DB_URL, dir: process.env.BENCH_DB_DIR });
const chain = fakeChain();
// A node that answers (bench/parts/scale.ts) instead of the fake chain's closed port, where viem's retries cost ~0.5 s a read.
if (process.env.BENCH_RPC_URL) chain.chains[0]!.rpcUrl = process.env.BENCH_RPC_URL;
// The rate limiter runs on every request (its cost is part of the figures) but with limits above what the bench
// offers: one key and one address stand here for the many a real deployment's load comes from.
const BENCH_RATES = { perSecond: 1_000_000, burst: 1_000_000, publicPerSecond: 1_000_000, publicBurst: 1_000_000, authPerMinute: 10_000 };
const h = await createHarness({ database, chains: chain.chains, config: { ...chain.config, rateLimits: BENCH_RATES }, logger: createLogger('info', 'devnet') });
const { services, db } = h;

let ctx: OrderContext | undefined;
let storeOf: typeof services.publicSessions.set | undefined;
let sign: PaySigner | undefined;
/**
 * The limit: one EIP-712 signature and one INSERT of a full order row, behind the same HTTP stack (global
 * middleware included). Registered before the first request: Hono builds its router on the first match.
 */
h.app.post('/__bench/sign-insert', async (c) => {
  const row = await benchOrderRow(ctx!, newId('ord'), sign!);
  await db.insertInto('orders').values(row).execute();
  return c.json({ id: row.id, signature: row.signature }, 201);
});

const p = await h.platform();
const m = await merchant(h, p.secretKey);
const platform = await services.platforms.get(p.platformId);
const merchantRow = (await services.merchants.findByExternalId(p.platformId, m.external_id))!;
const rt = services.chains.get(84532);
ctx = {
  platform, merchant: merchantRow, chainId: rt.chainId, router: rt.router as Address, usdc: rt.usdc as Address, serviceFeeBps: h.config.serviceFeeBps,
};
sign = benchSigner(services.chains.requireSigner(), rt.chainId, rt.router as Address);

const server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise<void>((r) => (server.listening ? r() : server.once('listening', () => r())));
const port = (server.address() as AddressInfo).port;

const fixedSignature = (await benchOrderRow(ctx, 'ord_x', sign)).signature as Hex;
const commands: Record<string, (args: any) => Promise<unknown>> = {
  /** INSERT alone (same row shape, signature computed once) at a given concurrency. */
  insert: async ({ concurrency, ms }: { concurrency: number; ms: number }) => {
    const base = await benchOrderRow(ctx!, 'ord_template', async () => fixedSignature);
    return closedLoop(concurrency, ms, () => {
      const id = newId('ord');
      return db.insertInto('orders').values({ ...base, id, order_no: id, onchain_id: `0x${id.padEnd(64, '0').slice(0, 64)}` }).execute();
    });
  },
  /** Checkout sessions through the service (for the public-read benchmark): returns their tokens. */
  sessions: async ({ n }: { n: number }) => {
    const tokens: string[] = [];
    for (let i = 0; i < n; i++) {
      const s = await services.checkout.create({ platformId: p.platformId, uncheckedKeyId: null }, { merchant_id: m.external_id, order_no: `cs_seed_${i}_${Date.now()}`, chain_id: 84532, amount: '12.50' });
      tokens.push(s.url.split('/').pop()!);
    }
    return tokens;
  },
  /** The public-read cache stores nothing (every read a miss) or stores again; either way it starts empty. */
  caching: async ({ on }: { on: boolean }) => {
    const cache = services.publicSessions;
    storeOf ??= cache.set;
    cache.set = on ? storeOf : () => {};
    cache.changed('*');
  },
  /** The balance-closings worker's pass (src/workers.ts), once: closes what a bench filled behind the service's back. */
  closeBalances: async () => services.balance.closeAll(),
  count: async ({ table }: { table: string }) => h.count(table),
  memory: async () => process.memoryUsage(),
  cpu: async () => process.cpuUsage(),
  stop: async () => {
    const closed = new Promise<void>((r) => server.close(() => r()));
    (server as Server).closeAllConnections();
    await closed;
    await h.close();
    setImmediate(() => process.exit(0));
    return true;
  },
};

// The bench went away (Ctrl-C, a crash): close the database and go, nobody will ever send 'stop'.
process.on('disconnect', () => {
  void commands.stop!(undefined).catch(() => process.exit(1));
});

process.on('message', (msg: { id: number; cmd: string; args: unknown }) => {
  const fn = commands[msg.cmd];
  if (!fn) return process.send!({ id: msg.id, ok: false, error: `unknown command ${msg.cmd}` });
  fn(msg.args).then(
    (result) => process.send!({ id: msg.id, ok: true, result }),
    (err: Error) => process.send!({ id: msg.id, ok: false, error: String(err?.stack ?? err) }),
  );
});
process.send!({ ready: true, port, secretKey: p.secretKey, platformId: p.platformId, merchantId: m.external_id, db: kind });
