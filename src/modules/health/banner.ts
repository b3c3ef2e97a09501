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
  return ['', `  Trisettle is running (${config.env})`, '', ...body, ...(lines.length ? ['', ...lines] : []), '', ''].join('\n');
}

/** Relative to the working directory when it is inside it (./.data/devnet.json), absolute otherwise. */
function shortPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? `./${rel}` : path.resolve(file);
}
