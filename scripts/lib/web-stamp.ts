/**
 * Whether web/dist was built from the sources it would be built from now. The stamp is one SHA-256 over every
 * file under web/ except web/dist (sources, public assets, index.html, vite.config.ts, tsconfig), and
 * package-lock.json (a dependency bump changes the bundle), each as its relative path and bytes, in path order.
 * It is written into the build output (web/dist/.build-stamp) after a successful build, so deleting web/dist
 * or a failed build (vite empties the directory first) leaves no stamp and the next start builds.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const STAMP_FILE = '.build-stamp';

function filesUnder(dir: string, skip: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (full === skip) continue;
    if (entry.isDirectory()) out.push(...filesUnder(full, skip));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** The hash of what a build of `root`/web would read (see above). */
export function webSourceHash(root: string): string {
  const web = path.join(root, 'web');
  const files = filesUnder(web, path.join(web, 'dist'));
  const lock = path.join(root, 'package-lock.json');
  if (existsSync(lock)) files.push(lock);
  const hash = createHash('sha256');
  for (const file of files.map((f) => path.relative(root, f).split(path.sep).join('/')).sort()) {
    hash.update(`${file}\0`).update(readFileSync(path.join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

const stampPath = (root: string) => path.join(root, 'web', 'dist', STAMP_FILE);

/** True when web/dist has an index.html and a stamp equal to the sources' hash now. */
export function webBuildIsCurrent(root: string): boolean {
  const stamp = stampPath(root);
  if (!existsSync(stamp) || !existsSync(path.join(root, 'web', 'dist', 'index.html'))) return false;
  return readFileSync(stamp, 'utf8').trim() === webSourceHash(root);
}

/** After a successful build: records the hash of the sources it was built from. */
export function writeWebStamp(root: string, hash: string = webSourceHash(root)): void {
  writeFileSync(stampPath(root), `${hash}\n`);
}
