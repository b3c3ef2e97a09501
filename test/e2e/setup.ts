import { afterEach, expect } from 'vitest';
import { cspViolations } from './helpers/browser.js';

/** Every e2e test: no page it opened reported a Content-Security-Policy violation (helpers/browser.ts). */
afterEach(() => {
  expect(cspViolations.splice(0), 'Content-Security-Policy violations').toEqual([]);
});
