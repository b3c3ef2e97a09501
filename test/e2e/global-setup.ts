import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ROOT, startService, type DevnetJson } from '../helpers/service-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    devnet: DevnetJson;
  }
}

/** One service (and devnet) for the whole e2e run; each test file creates its own platform. */
export default async function setup(project: TestProject) {
  if (!existsSync(path.join(ROOT, 'web/dist/index.html'))) throw new Error('web/dist is missing: run `npm run build:web` first (npm run test:e2e does).');
  // Every browser test signs in from 127.0.0.1: the per-address sign-in limit (10 a minute, tested with its attack in
  // test/api/rate-limits.test.ts) would refuse the suite's own sign-ins, so it is raised for this one service.
  const service = await startService('e2e', { logLevel: process.env.E2E_LOG_LEVEL ?? 'info', env: { RATE_LIMIT_AUTH_PER_MINUTE: '300' } });
  project.provide('baseUrl', service.baseUrl);
  project.provide('devnet', service.devnet);
  return async () => {
    await service.stop();
  };
}
