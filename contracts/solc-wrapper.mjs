#!/usr/bin/env node
// A stand-in for the native `solc` binary, backed by the npm `solc` package (solc-js, wasm).
// Why: forge downloads native compilers, and this project must build offline. forge only needs
// `solc --version` (to learn the version) and `solc --standard-json` (JSON on stdin, JSON on stdout).
// Other flags forge passes (--allow-paths, --base-path, --include-path) are honoured for imports.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const solc = require('solc');
const args = process.argv.slice(2);

if (args.includes('--version') || args.includes('-v')) {
  // forge parses the last line; mimic native solc's build string so it is treated as 0.8.30.
  const version = solc.version().replace(/\.Emscripten\.clang$/, '.Linux.g++');
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${version}\n`);
  process.exit(0);
}

if (!args.includes('--standard-json')) {
  process.stderr.write('solc-wrapper: only --version and --standard-json are supported\n');
  process.exit(1);
}

function flagValues(name) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name && args[i + 1]) out.push(...args[i + 1].split(','));
    else if (args[i].startsWith(`${name}=`)) out.push(...args[i].slice(name.length + 1).split(','));
  }
  return out;
}

// forge normally inlines every source's content; this callback only serves anything it did not.
const roots = [...flagValues('--base-path'), ...flagValues('--include-path'), process.cwd()];
function findImports(importPath) {
  for (const root of roots) {
    const candidate = path.resolve(root, importPath);
    try {
      return { contents: readFileSync(candidate, 'utf8') };
    } catch {
      // try the next root
    }
  }
  return { error: `File not found: ${importPath}` };
}

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const input = Buffer.concat(chunks).toString('utf8');
process.stdout.write(solc.compile(input, { import: findImports }));
