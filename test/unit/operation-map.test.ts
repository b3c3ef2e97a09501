import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INDEXED_EVENTS } from '../../src/modules/indexer/events.js';

/**
 * docs/architecture.md's operation map says, for each endpoint and each chain event, the file that handles it
 * (issue 16). It is checked against what the service serves and indexes, so it cannot drift silently.
 */
const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
const section = doc.split(/^## Operation map\s*$/m)[1]?.split(/^## /m)[0] ?? '';
const rows = section
  .split('\n')
  .filter((l) => l.startsWith('| `'))
  .map((l) => l.split('|').map((c) => c.trim()).filter(Boolean))
  .map(([what, ...cells]) => {
    const names = cells.join(' ').match(/`([^`]+\.tsx?)`/g)?.map((f) => f.replace(/`/g, '')) ?? [];
    // A bare file name sits beside the row's last path (`src/modules/orders/create.ts` (`prepare.ts`)).
    let dir = '';
    const files = names.map((n) => (n.includes('/') ? ((dir = n.slice(0, n.lastIndexOf('/') + 1)), n) : dir + n));
    return { what: what!.replace(/`/g, ''), files };
  });

describe('docs/architecture.md operation map', () => {
  it('names every operation of the OpenAPI document and every indexed chain event', () => {
    const openapi = JSON.parse(readFileSync(new URL('../../sdk/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(openapi.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.length).toBeGreaterThan(40);
    const named = new Set(rows.map((r) => r.what));
    expect(operations.filter((op) => !named.has(op))).toEqual([]);
    expect(INDEXED_EVENTS.map((e) => e.name).filter((e) => !named.has(e))).toEqual([]);
  });

  it('points every row at files that exist', () => {
    expect(rows.length).toBeGreaterThan(0);
    const missing = rows.flatMap((r) => (r.files.length ? r.files : ['(no file)']).filter((f) => !existsSync(new URL(`../../${f}`, import.meta.url))).map((f) => `${r.what}: ${f}`));
    expect(missing).toEqual([]);
  });
});
