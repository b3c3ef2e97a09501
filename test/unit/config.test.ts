import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_PER_ENDPOINT } from '../../src/modules/webhooks/deliver.js';

const ROUTER = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const USDC = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const TREASURY = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const KEY_A = `0x${'a1'.repeat(32)}`;
const KEY_B = `0x${'b2'.repeat(32)}`;

/** A complete production environment (an RPC is configured, so production secrets are required). */
const PRODUCTION: Record<string, string> = {
  DATABASE_URL: 'postgres://trisettle:pw@db.internal:5432/trisettle',
  RPC_URL_84532: 'https://sepolia.base.org',
  ROUTER_ADDRESS_84532: ROUTER,
  USDC_ADDRESS_84532: USDC,
  SIGNER_PRIVATE_KEY: KEY_A,
  OPERATOR_PRIVATE_KEY: KEY_B,
  SERVICE_TREASURY: TREASURY,
  BETTER_AUTH_SECRET: 'x'.repeat(40),
};

function configError(env: Record<string, string>, argv: string[] = []): ConfigError {
  try {
    loadConfig(env, argv);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('config defaults (devnet)', () => {
  it('starts as a devnet with every default of DESIGN §2 when nothing is set', () => {
    const c = loadConfig({}, []);
    expect(c).toMatchObject({
      env: 'devnet',
      port: 3000,
      dataDir: './.data',
      databaseUrl: null,
      publicBaseUrl: 'http://localhost:3000',
      dashboardUrl: 'http://localhost:3000',
      signerPrivateKey: null,
      operatorPrivateKey: null,
      serviceFeeBps: 100,
      serviceTreasury: null,
      adminToken: null,
      betterAuthSecret: null,
      reserveHoldDays: 7,
      devnetRpcPort: 8545,
      logLevel: 'info',
      trustProxyHops: 0,
      role: 'all',
    });
    expect(c.chains.size).toBe(0);
  });

  it('listens on loopback only on the devnet (its keys and admin token are well known), on every interface in production; HOST overrides', () => {
    expect(loadConfig({}, []).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '' }, []).host).toBe('127.0.0.1');
    expect(loadConfig(PRODUCTION, []).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }, []).host).toBe('0.0.0.0');
    expect(loadConfig({ ...PRODUCTION, HOST: '10.1.2.3' }, []).host).toBe('10.1.2.3');
    expect(loadConfig({ HOST: '::1' }, []).host).toBe('::1');
    for (const bad of ['my-machine', '0.0.0.0:3000', '*']) expect(configError({ HOST: bad }).variable).toBe('HOST');
  });

  it('treats an empty variable as unset', () => {
    const c = loadConfig({ PORT: '', SERVICE_FEE_BPS: '', DATABASE_URL: '' }, []);
    expect(c.port).toBe(3000);
    expect(c.serviceFeeBps).toBe(100);
    expect(c.databaseUrl).toBeNull();
  });

  it('derives the base URL from PORT and defaults the dashboard to the same server', () => {
    const c = loadConfig({ PORT: '8080' }, []);
    expect(c.publicBaseUrl).toBe('http://localhost:8080');
    expect(c.dashboardUrl).toBe('http://localhost:8080');
  });

  it('runs all roles unless --role says otherwise, whatever node put in argv[0..1]', () => {
    expect(loadConfig({}, ['/usr/bin/node', '/app/dist/main.js']).role).toBe('all');
    expect(loadConfig({}, ['node', 'main.js', '--role', 'worker']).role).toBe('worker');
    expect(loadConfig({}, ['node', 'main.js', '--role=api']).role).toBe('api');
    expect(configError({}, ['node', 'main.js', '--role', 'cron']).variable).toBe('--role');
    expect(configError({}, ['node', 'main.js', '--role']).variable).toBe('--role');
  });
});

describe('config: every variable parsed (production)', () => {
  it('parses a complete production environment', () => {
    const c = loadConfig({
      ...PRODUCTION,
      RPC_URL_8453: 'https://mainnet.base.org',
      ROUTER_ADDRESS_8453: ROUTER.toLowerCase(),
      USDC_ADDRESS_8453: USDC,
      CONFIRMATIONS_8453: '30',
      FINALITY_8453: 'finalized',
      SERVICE_FEE_BPS: '250',
      ADMIN_TOKEN: 'admin-token-0123456789abcdef',
      PUBLIC_BASE_URL: 'https://api.trisettle.example/',
      DASHBOARD_URL: 'https://dashboard.trisettle.example/',
      PORT: '4000',
      DATA_DIR: '/var/lib/trisettle',
      RESERVE_HOLD_DAYS: '14',
      DEVNET_RPC_PORT: '9545',
      LOG_LEVEL: 'warn',
      TRUST_PROXY_HOPS: '2',
    }, []);
    expect(c.env).toBe('production');
    expect(c.port).toBe(4000);
    expect(c.dataDir).toBe('/var/lib/trisettle');
    expect(c.databaseUrl).toBe(PRODUCTION.DATABASE_URL);
    expect(c.publicBaseUrl).toBe('https://api.trisettle.example');
    expect(c.dashboardUrl).toBe('https://dashboard.trisettle.example');
    expect(c.signerPrivateKey).toBe(KEY_A);
    expect(c.operatorPrivateKey).toBe(KEY_B);
    expect(c.serviceFeeBps).toBe(250);
    expect(c.serviceTreasury).toBe(TREASURY);
    expect(c.adminToken).toBe('admin-token-0123456789abcdef');
    expect(c.betterAuthSecret).toBe('x'.repeat(40));
    expect(c.reserveHoldDays).toBe(14);
    expect(c.devnetRpcPort).toBe(9545);
    expect(c.logLevel).toBe('warn');
    expect(c.trustProxyHops).toBe(2);
    expect([...c.chains.keys()].sort()).toEqual([8453, 84532]);
    expect(c.chains.get(84532)).toEqual({ chainId: 84532, rpcUrl: 'https://sepolia.base.org', router: ROUTER, usdc: USDC, confirmations: 10, finality: 'safe' });
    // Addresses come out checksummed whatever case went in.
    expect(c.chains.get(8453)).toEqual({ chainId: 8453, rpcUrl: 'https://mainnet.base.org', router: ROUTER, usdc: USDC, confirmations: 30, finality: 'finalized' });
  });

  it('reads the gasless switch, cap and relayer key: on on the devnet, in production only with a relayer key', () => {
    expect(loadConfig({}, [])).toMatchObject({ gaslessEnabled: true, gaslessDailyCap: 1000, relayerPrivateKey: null });
    expect(loadConfig({ GASLESS_ENABLED: 'false' }, []).gaslessEnabled).toBe(false);
    expect(loadConfig(PRODUCTION, []).gaslessEnabled).toBe(false);
    expect(loadConfig({ ...PRODUCTION, RELAYER_PRIVATE_KEY: KEY_A, GASLESS_DAILY_CAP: '25' }, [])).toMatchObject({ gaslessEnabled: true, gaslessDailyCap: 25, relayerPrivateKey: KEY_A });
    expect(configError({ ...PRODUCTION, GASLESS_ENABLED: 'true' }).message).toBe('Invalid configuration: RELAYER_PRIVATE_KEY is required when GASLESS_ENABLED=true');
    expect(configError({ GASLESS_ENABLED: 'yes' }).message).toMatch(/^Invalid configuration: GASLESS_ENABLED /);
    expect(configError({ GASLESS_DAILY_CAP: '-1' }).message).toMatch(/^Invalid configuration: GASLESS_DAILY_CAP /);
  });

  it('reads the relay abuse bounds: gas ceiling, daily budget (devnet and production defaults), minimum amount, refusal bucket', () => {
    expect(loadConfig({}, [])).toMatchObject({ relayerGasLimit: 700_000n, relayerDailyBudgetWei: 10n * 10n ** 18n, gaslessMinAmount: 500_000n, relayRefusalsPerMinute: 10 });
    expect(loadConfig(PRODUCTION, []).relayerDailyBudgetWei).toBe(10n ** 17n);
    expect(loadConfig({ RELAYER_GAS_LIMIT: '400000', RELAYER_DAILY_BUDGET_WEI: '123', GASLESS_MIN_AMOUNT: '2.5', RATE_LIMIT_RELAY_REFUSALS_PER_MINUTE: '3' }, []))
      .toMatchObject({ relayerGasLimit: 400_000n, relayerDailyBudgetWei: 123n, gaslessMinAmount: 2_500_000n, relayRefusalsPerMinute: 3 });
    expect(loadConfig({ GASLESS_MIN_AMOUNT: '0' }, []).gaslessMinAmount).toBe(0n);
    expect(configError({ RELAYER_GAS_LIMIT: '50000000' }).message).toMatch(/^Invalid configuration: RELAYER_GAS_LIMIT /);
    expect(configError({ RELAYER_DAILY_BUDGET_WEI: '1e18' }).message).toMatch(/^Invalid configuration: RELAYER_DAILY_BUDGET_WEI /);
    expect(configError({ GASLESS_MIN_AMOUNT: '0.0000001' }).message).toMatch(/^Invalid configuration: GASLESS_MIN_AMOUNT /);
  });

  it('reads the x402 minimum apart from the gasless one: 0.01 USDC by default, whatever GASLESS_MIN_AMOUNT says', () => {
    expect(loadConfig({}, [])).toMatchObject({ x402MinAmount: 10_000n, gaslessMinAmount: 500_000n });
    expect(loadConfig({ ...PRODUCTION, RELAYER_PRIVATE_KEY: KEY_A }, []).x402MinAmount).toBe(10_000n);
    expect(loadConfig({ GASLESS_MIN_AMOUNT: '2' }, []).x402MinAmount).toBe(10_000n);
    expect(loadConfig({ X402_MIN_AMOUNT: '0.25' }, [])).toMatchObject({ x402MinAmount: 250_000n, gaslessMinAmount: 500_000n });
    expect(loadConfig({ X402_MIN_AMOUNT: '0.000001' }, []).x402MinAmount).toBe(1n);
    for (const bad of ['0.0000001', '-1', '1e3', 'ten', ' ']) {
      expect(configError({ X402_MIN_AMOUNT: bad }).message, bad).toMatch(/^Invalid configuration: X402_MIN_AMOUNT /);
    }
  });

  it('reads RPC_BATCH_SIZE (default 32, 0 turns batching off, refuses a negative or a huge size)', () => {
    expect(loadConfig({}, []).rpcBatchSize).toBe(32);
    expect(loadConfig({ RPC_BATCH_SIZE: '0' }, []).rpcBatchSize).toBe(0);
    expect(loadConfig({ ...PRODUCTION, RPC_BATCH_SIZE: '10' }, []).rpcBatchSize).toBe(10);
    expect(configError({ RPC_BATCH_SIZE: '-1' }).message).toMatch(/^Invalid configuration: RPC_BATCH_SIZE /);
    expect(configError({ RPC_BATCH_SIZE: '5000' }).message).toMatch(/^Invalid configuration: RPC_BATCH_SIZE /);
  });

  it('reads WEBHOOK_ATTEMPT_RETENTION_DAYS (default 30, 1..3650 whole days)', () => {
    expect(loadConfig({}, []).webhookAttemptRetentionDays).toBe(30);
    expect(loadConfig({ ...PRODUCTION, WEBHOOK_ATTEMPT_RETENTION_DAYS: '7' }, []).webhookAttemptRetentionDays).toBe(7);
    for (const bad of ['0', '-1', '3651', '1.5', '30d', ' ']) {
      expect(configError({ WEBHOOK_ATTEMPT_RETENTION_DAYS: bad }).message, bad).toMatch(/^Invalid configuration: WEBHOOK_ATTEMPT_RETENTION_DAYS /);
    }
  });

  it('reads WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT (default the deliverer\'s DEFAULT_PER_ENDPOINT, 1..1024)', () => {
    expect(loadConfig({}, []).webhookPerEndpoint).toBe(DEFAULT_PER_ENDPOINT);
    expect(loadConfig({ ...PRODUCTION, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '200' }, []).webhookPerEndpoint).toBe(200);
    for (const bad of ['0', '-1', '1025', '1.5', 'lots']) {
      expect(configError({ WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: bad }).message, bad).toMatch(/^Invalid configuration: WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT /);
    }
  });

  it('reads REQUEST_LOG_QUEUE_MAX_BYTES (default 16 MiB, 1 MiB..1 GiB)', () => {
    expect(loadConfig({}, []).requestLogQueueMaxBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ REQUEST_LOG_QUEUE_MAX_BYTES: '2097152' }, []).requestLogQueueMaxBytes).toBe(2 * 1024 * 1024);
    for (const bad of ['0', '1048575', '1073741825', '16MiB']) {
      expect(configError({ REQUEST_LOG_QUEUE_MAX_BYTES: bad }).message, bad).toMatch(/^Invalid configuration: REQUEST_LOG_QUEUE_MAX_BYTES /);
    }
  });

  it('reads FINALITY_<chainId> (latest, safe or finalized; default safe on a real network)', () => {
    expect(loadConfig(PRODUCTION, []).chains.get(84532)?.finality).toBe('safe');
    expect(loadConfig({ ...PRODUCTION, FINALITY_84532: 'latest' }, []).chains.get(84532)?.finality).toBe('latest');
    expect(configError({ ...PRODUCTION, FINALITY_84532: 'final' }).message).toBe('Invalid configuration: FINALITY_84532 must be latest, safe or finalized');
  });

  it('defaults confirmations per chain: 84532 → 10, 8453 → 20', () => {
    const c = loadConfig({ ...PRODUCTION, RPC_URL_8453: 'https://mainnet.base.org', ROUTER_ADDRESS_8453: ROUTER, USDC_ADDRESS_8453: USDC }, []);
    expect(c.chains.get(84532)?.confirmations).toBe(10);
    expect(c.chains.get(8453)?.confirmations).toBe(20);
    expect(loadConfig({ ...PRODUCTION, CONFIRMATIONS_84532: '3' }, []).chains.get(84532)?.confirmations).toBe(3);
  });

  it('ignores chain variables of a chain without RPC_URL (that chain is simply not configured)', () => {
    const c = loadConfig({ ...PRODUCTION, ROUTER_ADDRESS_8453: ROUTER }, []);
    expect([...c.chains.keys()]).toEqual([84532]);
  });

  it.each(['DATABASE_URL', 'SIGNER_PRIVATE_KEY', 'OPERATOR_PRIVATE_KEY', 'SERVICE_TREASURY', 'BETTER_AUTH_SECRET'])(
    'requires %s in production',
    (name) => {
      const env = { ...PRODUCTION };
      delete env[name];
      const err = configError(env);
      expect(err.variable).toBe(name);
      expect(err.message).toContain(name);
    },
  );

  it('does not require ADMIN_TOKEN in production (admin routes are then off)', () => {
    expect(loadConfig(PRODUCTION, []).adminToken).toBeNull();
  });
});

describe('config: bad values fail at start, naming the variable', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['PORT=abc', { PORT: 'abc' }, 'PORT'],
    ['PORT out of range', { PORT: '70000' }, 'PORT'],
    ['PORT negative', { PORT: '-1' }, 'PORT'],
    ['PORT blank', { PORT: ' ' }, 'PORT'],
    ['PORT exponent', { PORT: '1e3' }, 'PORT'],
    ['PORT hex', { PORT: '0x10' }, 'PORT'],
    ['PORT fraction', { PORT: '3000.5' }, 'PORT'],
    ['SERVICE_FEE_BPS=20000', { SERVICE_FEE_BPS: '20000' }, 'SERVICE_FEE_BPS'],
    ['SERVICE_FEE_BPS negative', { SERVICE_FEE_BPS: '-1' }, 'SERVICE_FEE_BPS'],
    ['SERVICE_FEE_BPS fraction', { SERVICE_FEE_BPS: '1.5' }, 'SERVICE_FEE_BPS'],
    ['RPC without router', { RPC_URL_84532: 'http://127.0.0.1:8545', USDC_ADDRESS_84532: USDC }, 'ROUTER_ADDRESS_84532'],
    ['RPC without USDC', { RPC_URL_84532: 'http://127.0.0.1:8545', ROUTER_ADDRESS_84532: ROUTER }, 'USDC_ADDRESS_84532'],
    ['8453 RPC without router', { ...PRODUCTION, RPC_URL_8453: 'https://mainnet.base.org', USDC_ADDRESS_8453: USDC }, 'ROUTER_ADDRESS_8453'],
    ['RPC not a URL', { RPC_URL_84532: 'sepolia.base.org' }, 'RPC_URL_84532'],
    ['router not an address', { ...PRODUCTION, ROUTER_ADDRESS_84532: '0x1234' }, 'ROUTER_ADDRESS_84532'],
    ['router with a wrong EIP-55 checksum', { ...PRODUCTION, ROUTER_ADDRESS_84532: ROUTER.replace('afecb', 'AFECB') }, 'ROUTER_ADDRESS_84532'],
    ['CONFIRMATIONS not a number', { ...PRODUCTION, CONFIRMATIONS_84532: 'ten' }, 'CONFIRMATIONS_84532'],
    ['FINALITY not a tag', { ...PRODUCTION, FINALITY_84532: 'pending' }, 'FINALITY_84532'],
    ['SIGNER_PRIVATE_KEY short', { SIGNER_PRIVATE_KEY: '0x1234' }, 'SIGNER_PRIVATE_KEY'],
    ['SIGNER_PRIVATE_KEY without 0x', { SIGNER_PRIVATE_KEY: 'a1'.repeat(32) }, 'SIGNER_PRIVATE_KEY'],
    ['SIGNER_PRIVATE_KEY not hex', { SIGNER_PRIVATE_KEY: `0x${'zz'.repeat(32)}` }, 'SIGNER_PRIVATE_KEY'],
    ['OPERATOR_PRIVATE_KEY malformed', { OPERATOR_PRIVATE_KEY: `0x${'a'.repeat(63)}` }, 'OPERATOR_PRIVATE_KEY'],
    ['SERVICE_TREASURY malformed', { SERVICE_TREASURY: '0xnot-an-address' }, 'SERVICE_TREASURY'],
    ['SERVICE_TREASURY wrong checksum', { SERVICE_TREASURY: '0x90F79bf6EB2c4f870365E785982E1f101E93b907' }, 'SERVICE_TREASURY'],
    ['ADMIN_TOKEN too short', { ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    ['BETTER_AUTH_SECRET too short', { BETTER_AUTH_SECRET: 'short' }, 'BETTER_AUTH_SECRET'],
    ['DATABASE_URL not postgres', { DATABASE_URL: 'mysql://localhost/db' }, 'DATABASE_URL'],
    ['PUBLIC_BASE_URL not a URL', { PUBLIC_BASE_URL: 'localhost:3000' }, 'PUBLIC_BASE_URL'],
    ['PUBLIC_BASE_URL not http(s)', { PUBLIC_BASE_URL: 'javascript:alert(1)' }, 'PUBLIC_BASE_URL'],
    ['DASHBOARD_URL not a URL', { DASHBOARD_URL: 'dashboard' }, 'DASHBOARD_URL'],
    ['RESERVE_HOLD_DAYS out of range', { RESERVE_HOLD_DAYS: '400' }, 'RESERVE_HOLD_DAYS'],
    ['DEVNET_RPC_PORT zero', { DEVNET_RPC_PORT: '0' }, 'DEVNET_RPC_PORT'],
    ['LOG_LEVEL unknown', { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    ['TRUST_PROXY_HOPS not a number', { TRUST_PROXY_HOPS: 'true' }, 'TRUST_PROXY_HOPS'],
    ['TRUST_PROXY_HOPS out of range', { TRUST_PROXY_HOPS: '11' }, 'TRUST_PROXY_HOPS'],
  ];

  it.each(cases)('%s → ConfigError', (_label, env, variable) => {
    const err = configError(env);
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.variable).toBe(variable);
    expect(err.message).toContain(variable);
  });

  it('requires the operator key only where workers run: an --role api instance never signs an operator transaction', () => {
    const { OPERATOR_PRIVATE_KEY: _, ...withoutOperator } = PRODUCTION;
    expect(loadConfig(withoutOperator, ['node', 'main.ts', '--role', 'api']).operatorPrivateKey).toBeNull();
    expect(configError(withoutOperator, ['node', 'main.ts', '--role', 'worker']).message).toMatch(/OPERATOR_PRIVATE_KEY is required/);
    expect(configError(withoutOperator).message).toMatch(/OPERATOR_PRIVATE_KEY is required/);
  });

  it('accepts several admin tokens and session secrets (rotation), each long enough', () => {
    const c = loadConfig({ ...PRODUCTION, BETTER_AUTH_SECRET: `${'n'.repeat(32)},${'o'.repeat(32)}` }, []);
    expect(c.betterAuthSecret).toBe(`${'n'.repeat(32)},${'o'.repeat(32)}`);
    expect(configError({ ...PRODUCTION, BETTER_AUTH_SECRET: `${'n'.repeat(32)},short` }).message).toMatch(/BETTER_AUTH_SECRET/);
  });

  it('says a missing dependent variable is required rather than quoting a schema message', () => {
    expect(configError({ RPC_URL_84532: 'http://127.0.0.1:8545' }).message).toBe('Invalid configuration: ROUTER_ADDRESS_84532 is required');
  });

  it('never echoes a secret value in the error', () => {
    const secret = `0x${'c3'.repeat(31)}`;
    expect(configError({ SIGNER_PRIVATE_KEY: secret }).message).not.toContain(secret);
  });
});
