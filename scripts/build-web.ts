/**
 * Builds the hosted pages into web/dist (vite), then stamps the build with the hash of its sources
 * (scripts/lib/web-stamp.ts).
 *
 *   tsx scripts/build-web.ts               always builds (npm run build:web)
 *   tsx scripts/build-web.ts --if-changed  builds only when the sources changed since the stamped build (npm start)
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { webBuildIsCurrent, webSourceHash, writeWebStamp } from './lib/web-stamp.js';

const root = path.resolve(import.meta.dirname, '..');
if (process.argv.includes('--if-changed') && webBuildIsCurrent(root)) {
  console.log('web/dist is up to date with web/ and package-lock.json: not rebuilt (npm run build:web forces it)');
} else {
  // Hashed before the build: a file edited while vite runs leaves a stamp that no longer matches, so the next start builds again.
  const hash = webSourceHash(root);
  const vite = path.join(root, 'node_modules/vite/bin/vite.js'); // the package exports no bin subpath to resolve
  execFileSync(process.execPath, [vite, 'build', '--config', path.join(root, 'web/vite.config.ts')], { cwd: root, stdio: 'inherit' });
  writeWebStamp(root, hash);
}
