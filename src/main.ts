import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openPglite, openPostgres } from './db/client.js';
import { migrate } from './db/migrate.js';
import { randomBase62 } from './lib/ids.js';
import { createLogger, prettyDestination } from './lib/logger.js';
import { startupBanner } from './modules/health/banner.js';
import { StartupRefusal, startupChecks } from './modules/health/startup.js';
import { listen, selfUrl } from './server.js';
import { createServices } from './services.js';
import { startWorkers } from './workers.js';

/** config → (devnet) → db + migrate → app → workers. Stops cleanly on SIGINT/SIGTERM. */
async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    throw err;
  }
  // A person at a terminal reads lines; anything else (a file, a collector) gets pino's JSON.
  const logger = createLogger(config.logLevel, config.env, process.stdout.isTTY ? prettyDestination() : undefined);
  mkdirSync(config.dataDir, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  let freshChain = false;
  let devnetInfo: import('./chain/devnet.js').DevnetInfo | null = null;

  if (config.env === 'devnet') {
    const { startDevnet } = await import('./chain/devnet.js');
    const devnet = await startDevnet({ dataDir: config.dataDir, port: config.devnetRpcPort, apiUrl: config.publicBaseUrl, reserveHoldSeconds: BigInt(config.reserveHoldDays * 86_400) });
    stops.push(() => devnet.stop());
    const { info, secrets } = devnet;
    devnetInfo = info;
    // anvil answers WebSocket on its HTTP port: the devnet's indexer follows new heads by subscription.
    config.chains.set(info.chain_id, { chainId: info.chain_id, rpcUrl: info.rpc_url, wsUrl: info.rpc_url.replace(/^http/, 'ws'), router: info.router, usdc: info.usdc, subscriptionManager: info.subscription_manager, depositFactory: info.deposit_factory, confirmations: 1, startBlock: BigInt(info.router_deploy_block) });
    freshChain = devnet.deployed;
    config.signerPrivateKey ??= secrets.signerPrivateKey;
    config.operatorPrivateKey ??= secrets.operatorPrivateKey;
    config.relayerPrivateKey ??= secrets.relayerPrivateKey;
    config.serviceTreasury ??= info.service_treasury;
    config.adminToken ??= secrets.adminToken;
    logger.info({ rpc_url: info.rpc_url, router: info.router, usdc: info.usdc, devnet_json: path.join(config.dataDir, 'devnet.json') }, 'devnet ready');
  }

  const database = config.databaseUrl ? openPostgres(config.databaseUrl) : openPglite(path.join(config.dataDir, 'pg'));
  stops.unshift(() => database.close());
  const applied = await migrate(database.db);
  if (applied.length) logger.info({ applied }, 'migrations applied');
  if (freshChain) {
    // The devnet chain was (re)deployed from genesis: an indexer cursor from an older chain is meaningless.
    await database.db.deleteFrom('chain_cursors').execute();
  }

  const services = createServices({ config, database, logger, authSecret: config.betterAuthSecret ?? devAuthSecret(config.dataDir) });
  try {
    await startupChecks({ db: database.db, serviceFeeBps: config.serviceFeeBps, webhookSecrets: services.webhookSecrets, logger });
  } catch (err) {
    if (!(err instanceof StartupRefusal)) throw err;
    console.error(`Trisettle refuses to start: ${err.message}`);
    for (const stop of stops) await stop().catch(() => {});
    process.exit(78);
  }
  if (config.role !== 'worker') {
    const { server, address } = await listen(buildApp(services), config);
    stops.unshift(() => new Promise<void>((resolve) => server.close(() => resolve())));
    // After the server stopped taking requests, before the database closes: what the request log still holds.
    stops.splice(1, 0, () => services.requestLogs.stop());
    logger.info({ url: config.publicBaseUrl, dashboard: config.dashboardUrl, env: config.env, listen: `${address.address}:${address.port}` }, `Trisettle listening on ${config.publicBaseUrl}`);
  }
  if (config.role !== 'api') stops.unshift(await startWorkers(services));
  if (config.role !== 'worker') {
    // Once it answers its own /health over HTTP: what a person needs next, on stdout.
    const health = `${selfUrl(config)}/health`;
    const ok = await fetch(health, { signal: AbortSignal.timeout(5_000) }).then((r) => r.ok, () => false);
    if (ok) process.stdout.write(startupBanner(config, devnetInfo, path.join(config.dataDir, 'devnet.json')));
    else logger.warn({ url: health }, 'started, but /health does not answer 200 yet');
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const stop of stops) await stop().catch((err) => logger.error({ err }, 'shutdown step failed'));
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/** Devnet only: a session-signing secret generated once and kept in DATA_DIR, so sessions survive restarts. */
function devAuthSecret(dataDir: string): string {
  const file = path.join(dataDir, 'auth-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBase62(48);
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

main().catch((err) => {
  console.error('Trisettle failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
