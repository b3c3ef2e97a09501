import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';

const DB_TIMEOUT_MS = 2_000;

/** What /health shows the public when the database is down: the driver's message names hosts and ports. */
export const PUBLIC_DB_ERROR = 'database unavailable';

export function createHealthService(config: Config, database: Database, clock: Clock) {
  return {
    /**
     * SPEC §4 Health. A database that does not answer within 2 s counts as down. `detail` is the driver's
     * short reason (code and first line, never a connection string or stack): for logs and admins only.
     */
    async check() {
      const started = performance.now();
      let detail: string | null = null;
      try {
        await Promise.race([
          database.ping(),
          new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${DB_TIMEOUT_MS} ms`)), DB_TIMEOUT_MS).unref()),
        ]);
      } catch (err) {
        const e = err as { code?: string; message?: string };
        detail = (e.code ? `${e.code}: ` : '') + String(e.message ?? 'unreachable').split('\n')[0]!.slice(0, 200);
      }
      return {
        report: {
          ok: detail === null,
          env: config.env,
          time_ms: clock.ms(),
          db: { ok: detail === null, latency_ms: Math.round(performance.now() - started), error: detail === null ? null : PUBLIC_DB_ERROR },
        },
        detail,
      };
    },
  };
}
