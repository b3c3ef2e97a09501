import type { Db } from '../../db/client.js';
import { notFound } from '../../lib/errors.js';
import type { ChainsService } from '../chains/service.js';
import { advanceTime, createLimiter, readClock, type TestClockDeps } from './advance-time.js';
import type { ClockPipeline } from './bill-periods.js';

/** Test clocks (devnet only; app.ts answers 404 for /v1/test_helpers/* on any other deployment). */
export function createTestHelpers(opts: { db: Db; chains: ChainsService; pipeline: ClockPipeline }) {
  const deps: TestClockDeps = {
    limiter: createLimiter(),
    pipeline: opts.pipeline,
    async chainOf(platformId) {
      const p = await opts.db.selectFrom('platforms').select('chain_id').where('id', '=', platformId).executeTakeFirst();
      if (!p) throw notFound('platform');
      return opts.chains.get(p.chain_id);
    },
  };
  return {
    advanceTime: (platformId: string, seconds: number) => advanceTime(deps, platformId, seconds),
    clock: async (platformId: string) => readClock((await deps.chainOf(platformId)).publicClient),
  };
}

export type TestHelpers = ReturnType<typeof createTestHelpers>;
