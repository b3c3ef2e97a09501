import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * End-to-end suite: the real service (devnet: anvil, contracts, indexer, webhooks) started once by the
 * global setup, driven through Debian's Chromium with an injected EIP-6963 test wallet. Run with
 * `npm run test:e2e` (installs Chromium if missing and builds the web first).
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    setupFiles: ['test/e2e/setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 150_000,
    teardownTimeout: 30_000,
    fileParallelism: false,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default'],
  },
});
