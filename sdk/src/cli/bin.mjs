#!/usr/bin/env node
// The `trisettle` bin inside this repository (the npm workspace links @trisettle/sdk to sdk/, whose sources are
// TypeScript): `npx @trisettle/sdk listen …` here runs src/cli/main.ts through tsx, a dev dependency of the
// repository. The packed SDK's bin is the compiled esm/cli/main.js instead (sdk/scripts/build.ts), which needs nothing.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
