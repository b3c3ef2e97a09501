import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_SNAPSHOT, GENERATED_TYPES, generatedTypes, liveDocument, snapshotText } from '../../sdk/scripts/document.js';

describe('the SDK types', () => {
  it('are generated from the document the app serves now (run `npm run sdk:generate` when this fails)', async () => {
    const doc = await liveDocument();
    expect(readFileSync(DOCUMENT_SNAPSHOT, 'utf8'), 'sdk/openapi.json is stale').toBe(snapshotText(doc));
    const again = await generatedTypes(doc);
    expect(readFileSync(GENERATED_TYPES, 'utf8') === again, 'sdk/src/generated/openapi.ts is stale').toBe(true);
    expect(again).toBe(await generatedTypes(await liveDocument())); // deterministic
  });
});
