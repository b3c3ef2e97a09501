import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';

const DB_TIMEOUT_MS = 2_000;

export function createHealthService(config: Config, database: Database) {
  return {
    /** SPEC §4 Health. A database that does not answer within 2 s counts as down. */
    async check() {
      const started = performance.now();
      let error: string | null = null;
      try {
        await Promise.race([
          database.ping(),
          new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${DB_TIMEOUT_MS} ms`)), DB_TIMEOUT_MS).unref()),
        ]);
      } catch (err) {
        // Only a short reason leaves the process: never a connection string or stack.
        const e = err as { code?: string; message?: string };
        error = (e.code ? `${e.code}: ` : '') + String(e.message ?? 'unreachable').split('\n')[0]!.slice(0, 200);
      }
      return {
        ok: error === null,
        env: config.env,
        time_ms: Date.now(),
        db: { ok: error === null, latency_ms: Math.round(performance.now() - started), error },
      };
    },
  };
}
