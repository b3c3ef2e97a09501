import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createLogger, prettyDestination } from '../../src/lib/logger.js';
import { registerSecretUrls } from '../../src/lib/redact-urls.js';
import { startupBanner } from '../../src/modules/health/banner.js';

describe('the start-up banner', () => {
  const devnet = {
    chain_id: 84532, rpc_url: 'http://127.0.0.1:8545', usdc: '0x5FbDB2315678afecb367f032d93F642f64180aa3', router: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
    router_deploy_block: 1, service_treasury: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', admin_token: 'adm_secret_do_not_print_0123456789',
    accounts: [{ address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', private_key: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' }],
  } as const;

  it('names the dashboard, the API, the chain and RPC, devnet.json, a buyer and the wallet settings, and no service secret', () => {
    const text = startupBanner({ env: 'devnet', publicBaseUrl: 'http://localhost:3100', dashboardUrl: 'http://localhost:3100' }, devnet as never, `${process.cwd()}/.data/devnet.json`);
    for (const part of ['http://localhost:3100/dashboard', 'http://localhost:3100/docs', '84532', 'http://127.0.0.1:8545', '.data/devnet.json',
      devnet.accounts[0].address, devnet.accounts[0].private_key, 'chain ID 84532', 'Local devnet (chain 84532)', devnet.usdc]) expect(text).toContain(part);
    expect(text).not.toContain(devnet.admin_token);
    expect(text.split('\n').length).toBeLessThan(20);
  });

  it('prints export lines a shell can paste: the URLs as the variables docs/integration.md and the CLI read', () => {
    const json = `${process.cwd()}/.data dir/it's/devnet.json`; // a space and a quote survive the quoting
    const text = startupBanner({ env: 'devnet', publicBaseUrl: 'http://localhost:3100', dashboardUrl: 'http://localhost:3101' }, devnet as never, json);
    const exports = text.split('\n').filter((l) => /^\s+export TRISETTLE_/.test(l)).join('\n');
    const out = execFileSync('bash', ['-c', `${exports}\nprintf '%s|' "$TRISETTLE_API" "$TRISETTLE_RPC_URL" "$TRISETTLE_DEVNET_JSON"`], { encoding: 'utf8' });
    expect(out).toBe(`http://localhost:3100|http://127.0.0.1:8545|${json}|`);
    expect(exports.match(/TRISETTLE_[A-Z_]+/g)).toEqual(['TRISETTLE_API', 'TRISETTLE_RPC_URL', 'TRISETTLE_DEVNET_JSON']);
  });

  it('in production, only where the dashboard and the API are', () => {
    const text = startupBanner({ env: 'production', publicBaseUrl: 'https://api.example.com', dashboardUrl: 'https://app.example.com' }, null, '/x/devnet.json');
    expect(text).toContain('https://app.example.com/dashboard');
    expect(text).not.toMatch(/devnet|private key/);
  });
});

describe('logs on a terminal', () => {
  it('are one readable line each, with redaction and RPC scrubbing still applied', () => {
    registerSecretUrls(['https://base.example/v2/KEY123secret']);
    let out = '';
    const logger = createLogger('info', 'devnet', prettyDestination({ write: (s: string) => { out += s; } }, false));
    logger.info({ order_id: 'ord_1', secret_key: 'sk_live_abc', rpc: 'https://base.example/v2/KEY123secret' }, 'order created');
    logger.error({ err: new Error('boom') }, 'it failed');
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d INFO  order created {2}order_id=ord_1 secret_key=\[redacted\] rpc=/);
    expect(out).not.toContain('KEY123secret');
    expect(out).not.toContain('sk_live_abc');
    expect(out).toMatch(/ERROR it failed\s+\n\s+Error: boom/);
    expect(out).not.toMatch(/^\{/m);
  });
});
