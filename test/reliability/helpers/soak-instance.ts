/**
 * One service instance for the soak and the database-outage test: started exactly as src/main.ts starts
 * a production instance (config from the environment → PostgreSQL + migrations → app → workers), with one
 * difference: the webhook address policy is the devnet's, so deliveries may reach the test's receiver on
 * 127.0.0.1 (production refuses loopback, which is what it must do; that is tested elsewhere).
 */
import { serve } from '@hono/node-server';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { openPostgres } from '../../../src/db/client.js';
import { migrate } from '../../../src/db/migrate.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createServices } from '../../../src/services.js';
import { startWorkers } from '../../../src/workers.js';

const config = loadConfig();
config.env = 'devnet';
const logger = createLogger(config.logLevel, config.env);
const database = openPostgres(config.databaseUrl!);
await migrate(database.db);
const services = createServices({ config, database, logger, authSecret: config.betterAuthSecret! });
const server = serve({ fetch: buildApp(services).fetch, port: config.port });
const stopWorkers = await startWorkers(services);
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  server.close();
  void stopWorkers().then(() => database.close()).then(() => process.exit(0));
});
