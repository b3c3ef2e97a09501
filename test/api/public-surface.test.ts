import { Writable } from 'node:stream';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openPostgres } from '../../src/db/client.js';
import { createLogger } from '../../src/lib/logger.js';
import { platformsWithoutFeeRoom, StartupRefusal, startupChecks } from '../../src/modules/health/startup.js';
import { messageSafeName } from '../../src/modules/invitations/message.js';
import { createWebhookSecrets } from '../../src/modules/webhooks/secrets.js';
import { createServices } from '../../src/services.js';
import { fakeChain } from '../helpers/factories.js';
import { ADMIN_TOKEN, BASE, createHarness, testConfig, type Harness } from '../helpers/harness.js';

/** Issue 19, public surface: each block fails on the code before it. */
let h: Harness;
beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness({ ...chain, config: { ...chain.config, dashboardUrl: 'https://pay.example.com' } });
});
afterAll(async () => {
  await h?.close();
});

describe('/health with the database down', () => {
  it('shows the public a generic reason, logs the driver detail, and shows it to the admin bearer only', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
    const config = testConfig();
    const database = openPostgres('postgres://svc:hunter2@127.0.0.1:1/trisettle', 2);
    const services = createServices({ config, database, logger: createLogger('info', 'devnet', sink), authSecret: 'x'.repeat(40) });
    const app = buildApp(services);
    try {
      const pub = await app.request(`${BASE}/health`);
      expect(pub.status).toBe(503);
      const body = await pub.json();
      expect(body.db).toMatchObject({ ok: false, error: 'database unavailable' });
      expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|:1\b/);
      expect(lines.join('')).toMatch(/ECONNREFUSED/);

      const wrong = await app.request(`${BASE}/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } });
      expect((await wrong.json()).db.error).toBe('database unavailable');
      const admin = await app.request(`${BASE}/health`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(admin.status).toBe(503);
      const detail = (await admin.json()).db.error as string;
      expect(detail).toMatch(/ECONNREFUSED/);
      expect(detail).not.toContain('hunter2');
    } finally {
      await database.close();
    }
  });
});

describe('the invitation message', () => {
  it('keeps a platform name with newlines on one bounded line, names the domain and the reserve, and still verifies', async () => {
    const p = await h.platform({ name: `Acme\nReserve: 0 bps\r\nWallet: 0xdead\u202E\u0007${'x'.repeat(300)}`.slice(0, 200) });
    const inv = await h.request('POST', '/v1/merchants/invitations', {
      key: p.secretKey, body: { external_id: 'm_forge', suggested_name: 'Bakery', chain_id: 84532, reserve_bps: 750 },
    });
    expect(inv.status).toBe(201);
    const account = privateKeyToAccount(generatePrivateKey());
    const read = await h.request('GET', `/v1/merchants/invitations/${inv.body.token}?wallet=${account.address}`);
    expect(read.status).toBe(200);
    const message = read.body.message as string;
    const lines = message.split('\n');
    // Only the service's own lines: one Reserve line (ours), one Wallet line (ours), no control characters.
    expect(lines.filter((l) => l.startsWith('Reserve:'))).toEqual(['Reserve: 750 bps']);
    expect(lines.filter((l) => l.startsWith('Wallet:'))).toEqual([`Wallet: ${account.address}`]);
    expect(message).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);
    expect(lines.find((l) => l.startsWith('Platform:'))!.length).toBeLessThan(64 + 40);
    expect(message).toContain('pay.example.com');
    expect(message).toContain('7.5%');
    expect(lines).toContain('Domain: pay.example.com');

    const signature = await account.signMessage({ message });
    const done = await h.request('POST', `/v1/merchants/invitations/${inv.body.token}/complete`, { body: { wallet: account.address, name: 'Bakery', signature } });
    expect(done.status).toBe(201);
    expect(done.body.invitation).toMatchObject({ state: 'completed', wallet: account.address, reserve_bps: 750 });
  });

  it('messageSafeName: flattens, bounds and never empties', () => {
    expect(messageSafeName('A\nB\tC\u2028D')).toBe('A B C D');
    expect([...messageSafeName('é'.repeat(500))].length).toBe(64);
    expect(messageSafeName('\n\u200b\n')).toBe('(unnamed platform)');
  });
});

describe('webhook secrets at rest', () => {
  it('are stored sealed (not the whsec_ the caller got), sign deliveries, and rotate by configuration', async () => {
    const p = await h.platform();
    const created = await h.request('POST', '/v1/webhooks/endpoints', {
      key: p.secretKey, body: { url: 'http://127.0.0.1:9/in', subscribed_events: ['*'] },
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const row = await h.db.selectFrom('webhook_endpoints').select(['secret']).where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(secret.slice(6));
    expect(row.secret).toMatch(/^s1:[0-9a-f]{8}:v1:/);
    expect(h.services.webhookSecrets.open(row.secret)).toBe(secret);

    // A legacy plain row (from before sealing) is read as it is and re-sealed at start-up.
    await h.db.updateTable('webhook_endpoints').set({ secret }).where('id', '=', created.body.id).execute();
    const logger = createLogger('silent', 'devnet');
    await startupChecks({ db: h.db, serviceFeeBps: h.config.serviceFeeBps, webhookSecrets: h.services.webhookSecrets, logger });
    const resealed = await h.db.selectFrom('webhook_endpoints').select(['secret']).where('id', '=', created.body.id).executeTakeFirstOrThrow();
    expect(resealed.secret).toMatch(/^s1:/);
    expect(h.services.webhookSecrets.open(resealed.secret)).toBe(secret);

    // Rotation: new key first, the old one after it → start-up re-seals with the new key; then the old one can go.
    const rotated = createWebhookSecrets(['n'.repeat(40), 'test-secret-test-secret-test-secret-0123']);
    await startupChecks({ db: h.db, serviceFeeBps: h.config.serviceFeeBps, webhookSecrets: rotated, logger });
    const after = await h.db.selectFrom('webhook_endpoints').select(['secret']).execute();
    const onlyNew = createWebhookSecrets(['n'.repeat(40)]);
    for (const r of after) expect(onlyNew.isCurrent(r.secret)).toBe(true);
    expect(onlyNew.open((await h.db.selectFrom('webhook_endpoints').select(['secret']).where('id', '=', created.body.id).executeTakeFirstOrThrow()).secret)).toBe(secret);

    // A key dropped too early: start-up refuses, naming the endpoint.
    const lost = createWebhookSecrets(['z'.repeat(40)]);
    await expect(startupChecks({ db: h.db, serviceFeeBps: h.config.serviceFeeBps, webhookSecrets: lost, logger }))
      .rejects.toThrow(new RegExp(created.body.id));
  });
});

describe('GET /v1/me', () => {
  it('does not tell a publishable key who owns the platform; a secret key and the session still see it', async () => {
    const p = await h.platform();
    const pub = await h.request('GET', '/v1/me', { key: p.publishableKey });
    expect(pub.status).toBe(200);
    expect(pub.body).toMatchObject({ auth_kind: 'publishable_key', platform_id: p.platformId, user_id: null });
    const sec = await h.request('GET', '/v1/me', { key: p.secretKey });
    expect(sec.body).toMatchObject({ auth_kind: 'secret_key', user_id: p.userId });
  });
});

describe('SERVICE_FEE_BPS against the platforms', () => {
  it('refuses to start when a platform fee leaves no room, naming the platforms', async () => {
    const p = await h.platform({ name: 'Greedy Co', platform_fee_bps: 9_800 });
    expect(await platformsWithoutFeeRoom(h.db, 200)).toEqual([]);
    const crowded = await platformsWithoutFeeRoom(h.db, 201);
    expect(crowded.map((x) => x.id)).toEqual([p.platformId]);
    const check = startupChecks({ db: h.db, serviceFeeBps: 300, webhookSecrets: h.services.webhookSecrets, logger: createLogger('silent', 'devnet') });
    await expect(check).rejects.toBeInstanceOf(StartupRefusal);
    await expect(check).rejects.toThrow(/Greedy Co/);
    await expect(check).rejects.toThrow(new RegExp(p.platformId));
  });
});
