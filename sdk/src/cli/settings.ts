import { readFileSync } from 'node:fs';

/** What the CLI reads from the environment: the names the service's start-up banner exports. */
export type CliEnv = { TRISETTLE_API?: string | undefined; TRISETTLE_RPC_URL?: string | undefined; TRISETTLE_DEVNET_JSON?: string | undefined };

type DevnetFile = { api_url?: string; rpc_url?: string };

function readDevnetJson(file: string): DevnetFile {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DevnetFile;
  } catch (err) {
    throw new Error(`cannot read TRISETTLE_DEVNET_JSON=${file} (written by \`npm start\` on the devnet): ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * A URL from its flag, else its variable, else the devnet's devnet.json (TRISETTLE_DEVNET_JSON); none of them is an
 * error naming what to set. No port is guessed: a service on another PORT would otherwise be missed silently.
 */
function resolve(flag: string | undefined, name: 'TRISETTLE_API' | 'TRISETTLE_RPC_URL', field: keyof DevnetFile, env: CliEnv, flagName: string): string {
  const value = flag ?? env[name] ?? (env.TRISETTLE_DEVNET_JSON ? readDevnetJson(env.TRISETTLE_DEVNET_JSON)[field] : undefined);
  if (value) return value;
  const where = env.TRISETTLE_DEVNET_JSON ? ` (${env.TRISETTLE_DEVNET_JSON} has no ${field}: written by an older service)` : '';
  throw new Error(`set ${name} (or ${flagName}, or TRISETTLE_DEVNET_JSON on the devnet)${where}: the start-up banner of \`npm start\` prints the export line`);
}

export const apiBaseFrom = (flag: string | undefined, env: CliEnv) => resolve(flag, 'TRISETTLE_API', 'api_url', env, '--api-base');
export const rpcUrlFrom = (flag: string | undefined, env: CliEnv) => resolve(flag, 'TRISETTLE_RPC_URL', 'rpc_url', env, '--rpc-url');
