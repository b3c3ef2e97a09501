import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** Issue 16's shape, kept: no import cycle between files or module folders, no function over 60 lines in src/modules. */
const repo = path.resolve(import.meta.dirname, '../..');
const shape = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', path.join(repo, 'scripts/code-shape.ts'), '--check', ...args], { cwd: repo, encoding: 'utf8' });

const fixtures: string[] = [];
afterAll(() => fixtures.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A tiny project: two module folders importing each other, and a function of `bodyLines` lines. */
function fixture(o: { cycle: boolean; bodyLines: number; reason?: string }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'shape-'));
  fixtures.push(dir);
  mkdirSync(path.join(dir, 'src/modules/a'), { recursive: true });
  mkdirSync(path.join(dir, 'src/modules/b'), { recursive: true });
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }));
  const body = Array.from({ length: o.bodyLines }, (_, i) => `  total += ${i};`).join('\n');
  writeFileSync(path.join(dir, 'src/modules/a/index.ts'),
    `import { b } from '../b/index.js';\n${o.reason ? `// long: ${o.reason}\n` : ''}export function a() {\n  let total = b();\n${body}\n  return total;\n}\n`);
  writeFileSync(path.join(dir, 'src/modules/b/index.ts'),
    o.cycle ? `import { a } from '../a/index.js';\nexport const b = () => (typeof a === 'function' ? 1 : 0);\n` : `export const b = () => 1;\n`);
  return dir;
}

describe('code shape (scripts/code-shape.ts --check)', () => {
  it('this repository has no cycle and no over-long function without a reason', () => {
    const r = shape();
    expect(r.stdout).toMatch(/file cycles: 0/);
    expect(r.stdout).toMatch(/module-folder cycles: 0/);
    expect(r.stdout).toMatch(/functions over 60 lines in src\/modules: \d+ \(0 without a reason\)/);
    expect(r.status).toBe(0);
  }, 60_000);

  it('fails on a cycle between module folders and on a long function, and accepts a written reason', () => {
    const cyclic = shape('--root', fixture({ cycle: true, bodyLines: 10 }));
    expect(cyclic.stdout).toMatch(/module-folder cycles: 1/);
    expect(cyclic.status).toBe(1);
    const long = shape('--root', fixture({ cycle: false, bodyLines: 70 }));
    expect(long.stdout).toMatch(/1 without a reason/);
    expect(long.stdout).toMatch(/src\/modules\/a\/index\.ts:\d+ {2}a/);
    expect(long.status).toBe(1);
    const explained = shape('--root', fixture({ cycle: false, bodyLines: 70, reason: 'a table, read top to bottom' }));
    expect(explained.stdout).toMatch(/0 without a reason/);
    expect(explained.status).toBe(0);
  }, 60_000);
});
