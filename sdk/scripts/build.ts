/**
 * npm run sdk:build   builds the publishable package into sdk/dist:
 *   dist/esm   ES modules + .d.ts (type: module)
 *   dist/cjs   CommonJS + .d.ts (its own package.json says type: commonjs)
 *   dist/package.json, README.md, openapi.json: the manifest npm packs (`npm pack ./sdk/dist`, `npm run sdk:pack`).
 *   bin `trisettle` → esm/cli/main.js: `npx @trisettle/sdk listen|trigger …` (sdk/src/cli).
 * Plain `tsc`, twice: no bundler and no runtime dependency (fetch and node:crypto only; hono is an optional peer
 * of the x402/hono entry's types). In this repository the
 * workspace keeps consuming src/ directly; only the tarball is built.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SDK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `--out-dir <dir>` builds elsewhere (a test that packs the SDK while another test file builds sdk/dist).
const outArg = process.argv.indexOf('--out-dir');
const DIST = outArg > 0 ? path.resolve(process.argv[outArg + 1]!) : path.join(SDK, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const manifest = JSON.parse(readFileSync(path.join(SDK, 'package.json'), 'utf8')) as Record<string, unknown> & { version: string };

const core = readFileSync(path.join(SDK, 'src/core.ts'), 'utf8');
const declared = /SDK_VERSION = '([^']+)'/.exec(core)?.[1];
if (declared !== manifest.version) throw new Error(`sdk/src/core.ts SDK_VERSION ${declared} differs from sdk/package.json version ${manifest.version}`);

rmSync(DIST, { recursive: true, force: true });
const common = ['-p', path.join(SDK, 'tsconfig.json'), '--noEmit', 'false', '--declaration', '--sourceMap', 'false', '--rootDir', path.join(SDK, 'src')];
execFileSync(process.execPath, [tsc, ...common, '--outDir', path.join(DIST, 'esm')], { stdio: 'inherit' });
execFileSync(process.execPath, [tsc, ...common, '--outDir', path.join(DIST, 'cjs'), '--module', 'commonjs', '--moduleResolution', 'node10', '--verbatimModuleSyntax', 'false'], { stdio: 'inherit' });
writeFileSync(path.join(DIST, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

const entry = (name: string) => ({
  import: { types: `./esm/${name}.d.ts`, default: `./esm/${name}.js` },
  require: { types: `./cjs/${name}.d.ts`, default: `./cjs/${name}.js` },
});
const published = {
  name: manifest.name,
  version: manifest.version,
  description: manifest.description,
  license: manifest.license,
  engines: manifest.engines,
  type: 'module',
  main: './cjs/index.js',
  module: './esm/index.js',
  types: './cjs/index.d.ts',
  exports: {
    '.': entry('index'), './webhooks': entry('webhooks'),
    './x402': entry('x402/index'), './x402/hono': entry('x402/hono'), './x402/express': entry('x402/express'),
    './package.json': './package.json',
  },
  // Only @trisettle/sdk/x402/hono names hono, and only in its types: optional, never installed for you.
  peerDependencies: manifest.peerDependencies,
  peerDependenciesMeta: manifest.peerDependenciesMeta,
  bin: { trisettle: './esm/cli/main.js' },
  sideEffects: false,
  files: ['esm', 'cjs', 'README.md', 'openapi.json'],
};
writeFileSync(path.join(DIST, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
for (const f of ['README.md', 'openapi.json']) copyFileSync(path.join(SDK, f), path.join(DIST, f));
mkdirSync(DIST, { recursive: true });
console.log(`built ${manifest.name}@${manifest.version} into ${path.relative(process.cwd(), DIST) || DIST}`);
