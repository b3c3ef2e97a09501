/**
 * npm run sdk:generate            writes sdk/openapi.json and sdk/src/generated/openapi.ts
 * npm run sdk:generate -- --check  exits 1 if either is not what the app generates now
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DOCUMENT_SNAPSHOT, GENERATED_TYPES, generatedTypes, liveDocument, snapshotText } from './document.js';

const check = process.argv.includes('--check');
const doc = await liveDocument();
const outputs: [URL, string][] = [[DOCUMENT_SNAPSHOT, snapshotText(doc)], [GENERATED_TYPES, await generatedTypes(doc)]];
let stale = 0;
for (const [file, text] of outputs) {
  const path = fileURLToPath(file);
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    /* first run */
  }
  if (current === text) continue;
  if (check) {
    console.error(`${path} is stale: run npm run sdk:generate`);
    stale++;
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
