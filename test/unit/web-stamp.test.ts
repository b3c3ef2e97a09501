import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webBuildIsCurrent, webSourceHash, writeWebStamp } from '../../scripts/lib/web-stamp.js';

/** A repository in miniature: web/ sources, a built web/dist and a package-lock.json. */
let root: string;
const write = (rel: string, text: string) => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'web-stamp-'));
  write('web/src/App.tsx', 'export const App = () => null;\n');
  write('web/vite.config.ts', 'export default {};\n');
  write('web/index.html', '<div id="root"></div>\n');
  write('package-lock.json', '{"lockfileVersion":3}\n');
  write('web/dist/index.html', '<html></html>\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('web build stamp (npm start builds the bundle only when its sources changed)', () => {
  it('a build without a stamp is rebuilt', () => {
    expect(webBuildIsCurrent(root)).toBe(false);
  });

  it('skips the build while nothing changed, the build output itself included', () => {
    writeWebStamp(root);
    expect(webBuildIsCurrent(root)).toBe(true);
    write('web/dist/assets/index-abc.js', 'console.log(1)\n'); // output files are not sources
    expect(webBuildIsCurrent(root)).toBe(true);
  });

  it('rebuilds when a source file changes, is added or is renamed', () => {
    writeWebStamp(root);
    write('web/src/App.tsx', 'export const App = () => "changed";\n');
    expect(webBuildIsCurrent(root)).toBe(false);
    writeWebStamp(root);
    write('web/src/pages/New.tsx', 'export {};\n');
    expect(webBuildIsCurrent(root)).toBe(false);
    const before = webSourceHash(root);
    rmSync(path.join(root, 'web/src/pages/New.tsx'));
    write('web/src/pages/Renamed.tsx', 'export {};\n');
    expect(webSourceHash(root)).not.toBe(before);
  });

  it('rebuilds when the vite config or package-lock.json changes', () => {
    writeWebStamp(root);
    write('web/vite.config.ts', 'export default { base: "/x/" };\n');
    expect(webBuildIsCurrent(root)).toBe(false);
    writeWebStamp(root);
    write('package-lock.json', '{"lockfileVersion":3,"packages":{}}\n');
    expect(webBuildIsCurrent(root)).toBe(false);
  });

  it('rebuilds when the output is gone though the stamp is there', () => {
    writeWebStamp(root);
    rmSync(path.join(root, 'web/dist/index.html'));
    expect(webBuildIsCurrent(root)).toBe(false);
  });
});
