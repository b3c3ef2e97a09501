import type { TestProject } from 'vitest/node';
import { startService, type DevnetJson } from './helpers/service.js';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    devnet: DevnetJson;
  }
}

/** One service (and devnet) for the whole e2e run; each test file creates its own platform. */
export default async function setup(project: TestProject) {
  const service = await startService();
  project.provide('baseUrl', service.baseUrl);
  project.provide('devnet', service.devnet);
  return async () => {
    await service.stop();
  };
}
