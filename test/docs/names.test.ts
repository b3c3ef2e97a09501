/**
 * One set of names across the service, the SDK, the examples and the docs: every `TRISETTLE_…` variable written
 * anywhere a reader or a tool meets it is one of the five below (the banner exports them, the CLI, the SDK and the
 * examples read them, the docs name them); no API or RPC port is a default of the SDK or the examples; and the
 * integration guide names every event type the service sends.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_EVENT_TYPE, TEST_EVENT_TYPES } from '../../src/modules/webhooks/test-objects.js';
import { ROOT } from '../helpers/service-process.js';

export const ENV_NAMES = ['TRISETTLE_API', 'TRISETTLE_API_KEY', 'TRISETTLE_WEBHOOK_SECRET', 'TRISETTLE_RPC_URL', 'TRISETTLE_DEVNET_JSON'];
const SCANNED = ['src', 'sdk/src', 'sdk/README.md', 'examples', 'docs', 'README.md', 'web/src'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.data']);

function files(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (statSync(abs).isFile()) return [rel];
  return readdirSync(abs, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? (SKIPPED_DIRS.has(d.name) ? [] : files(path.join(rel, d.name))) : /\.(ts|tsx|js|mjs|md|json|html|css)$/.test(d.name) ? [path.join(rel, d.name)] : []);
}

/** `file:line NAME` for each TRISETTLE_ name outside the set. */
export function strayNames(texts: [string, string][]): string[] {
  return texts.flatMap(([file, text]) => text.split('\n').flatMap((line, i) =>
    [...line.matchAll(/TRISETTLE_[A-Z_]+/g)].map((m) => m[0]).filter((n) => !ENV_NAMES.includes(n)).map((n) => `${file}:${i + 1} ${n}`)));
}

const scanned = SCANNED.flatMap(files).map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')] as [string, string]);

describe('environment variable names', () => {
  it('finds only the five names in src, sdk, examples, docs, README.md and web/src', () => {
    expect(scanned.length).toBeGreaterThan(100);
    expect(strayNames(scanned)).toEqual([]);
  });

  it('would report an old name (TRISETTLE_BASE_URL, TRISETTLE_SECRET_KEY) or any other one', () => {
    const stray = strayNames([['x.md', 'export TRISETTLE_API=1\nuse TRISETTLE_BASE_URL and TRISETTLE_SECRET_KEY\nTRISETTLE_DASHBOARD']]);
    expect(stray).toEqual(['x.md:2 TRISETTLE_BASE_URL', 'x.md:2 TRISETTLE_SECRET_KEY', 'x.md:3 TRISETTLE_DASHBOARD']);
  });

  it('the SDK and the examples default to no API or RPC port (they read TRISETTLE_API, TRISETTLE_RPC_URL or devnet.json)', () => {
    const code = scanned.filter(([f]) => /^(sdk\/src|examples)\/.*\.ts$/.test(f));
    expect(code.length).toBeGreaterThan(10);
    expect(code.filter(([, text]) => /localhost:3000|127\.0\.0\.1:8545|localhost:8545/.test(text)).map(([f]) => f)).toEqual([]);
  });
});

describe('docs/integration.md', () => {
  const guide = readFileSync(path.join(ROOT, 'docs/integration.md'), 'utf8');

  it('names every event type the service sends, each in the events table', () => {
    const rows = guide.split('\n').filter((l) => l.startsWith('| `'));
    const missing = TEST_EVENT_TYPES.filter((t) => t !== TEST_EVENT_TYPE).filter((t) => !rows.some((r) => r.split('|')[1]!.includes(`\`${t}\``)));
    expect(missing).toEqual([]);
  });

  it('explains fee_display and both of its values', () => {
    for (const word of ['fee_display', '"itemized"', '"total_only"']) expect(guide).toContain(word);
  });
});
