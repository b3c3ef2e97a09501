import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { runRetentionPass } from './run-pass.js';

export { runRetentionPass, WEEKS_AHEAD, type RetentionPolicy, type RetentionReport } from './run-pass.js';

/** Storage retention (issue 37): the week partitions of the append-only tables, created ahead and dropped past retention. */
export function createRetentionService(o: { db: Db; config: Pick<Config, 'eventRetentionDays' | 'requestLogRetentionDays' | 'operatorTxAttemptRetentionDays'>; clock: Clock; logger: Logger }) {
  return {
    runOnce: (now = o.clock.now()) => runRetentionPass(o.db, {
      now, policy: {
        eventDays: o.config.eventRetentionDays, requestLogDays: o.config.requestLogRetentionDays, operatorTxAttemptDays: o.config.operatorTxAttemptRetentionDays,
      }, log: o.logger,
    }),
  };
}
