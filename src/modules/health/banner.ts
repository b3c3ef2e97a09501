import path from 'node:path';
import type { DevnetInfo } from '../../chain/devnet.js';
import type { Config } from '../../config.js';

/**
 * What `npm start` prints once the service answers its own /health: where the dashboard and the API are and, on
 * the devnet, the chain, its RPC, devnet.json, a funded buyer and how to reach them from a browser wallet. No
 * secret of the service is in it; the buyer key is anvil's well-known test key (devnet only, worthless elsewhere).
 */
export function startupBanner(config: Pick<Config, 'env' | 'publicBaseUrl' | 'dashboardUrl'>, devnet: DevnetInfo | null, devnetJson: string): string {
  const rows: [string, string][] = [
    ['Dashboard', `${config.dashboardUrl}/dashboard`],
    ['API', `${config.publicBaseUrl}   (reference: ${config.publicBaseUrl}/docs)`],
  ];
  const lines: string[] = [];
  if (devnet) {
    const buyer = devnet.accounts[0];
    rows.push(
      ['Chain', `Local devnet (chain ${devnet.chain_id}), anvil   RPC ${devnet.rpc_url}`],
      ['devnet.json', `${shortPath(devnetJson)}   (router, USDC, funded accounts)`],
    );
    if (buyer) {
      rows.push(['Buyer', `${buyer.address}   (funded with test USDC and ETH)`], ['', `private key ${buyer.private_key}   (anvil's public test key: devnet only)`]);
    }
    lines.push(
      '  Browser wallet: add a network "Local devnet (chain ' + devnet.chain_id + ')", RPC URL ' + devnet.rpc_url + `, chain ID ${devnet.chain_id}, currency ETH;`,
      '  import the buyer\'s private key, and add the token ' + devnet.usdc + ' (USDC, 6 decimals) to see its balance.',
    );
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  const body = rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  return ['', `  Trisettle is running (${config.env})`, '', ...body, ...(lines.length ? ['', ...lines] : []), '', ...exportLines(config, devnet, devnetJson), '', ''].join('\n');
}

/**
 * Shell lines to paste where you run docs/integration.md's examples and `npx @trisettle/sdk`: the URLs as the
 * variables those read (TRISETTLE_API_KEY, a secret, is not known here: the sign-up shows it). The dashboard's
 * URL is on its own row above: no tool reads it from the environment.
 */
function exportLines(config: Pick<Config, 'publicBaseUrl'>, devnet: DevnetInfo | null, devnetJson: string): string[] {
  const lines = ['  In your shell (docs/integration.md, the examples and `npx @trisettle/sdk` read these):', `    export TRISETTLE_API=${shq(config.publicBaseUrl)}`];
  if (devnet) lines.push(`    export TRISETTLE_RPC_URL=${shq(devnet.rpc_url)} TRISETTLE_DEVNET_JSON=${shq(path.resolve(devnetJson))}`);
  return lines;
}

/** A shell word: as is when it is plainly safe, single-quoted otherwise. */
function shq(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Relative to the working directory when it is inside it (./.data/devnet.json), absolute otherwise. */
function shortPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? `./${rel}` : path.resolve(file);
}
