import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openPostgres } from '../../src/db/client.js';
import { createLogger } from '../../src/lib/logger.js';
import { createServices } from '../../src/services.js';
import { ADMIN_TOKEN, BASE, createHarness, TEST_DB, testConfig, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

/** SPEC §4: exactly ok, env, time_ms and db { ok, latency_ms, error }. */
function expectHealthShape(body: any) {
  expect(Object.keys(body).sort()).toEqual(['db', 'env', 'ok', 'time_ms']);
  expect(Object.keys(body.db).sort()).toEqual(['error', 'latency_ms', 'ok']);
  expect(typeof body.ok).toBe('boolean');
  expect(typeof body.env).toBe('string');
  expect(Number.isInteger(body.time_ms)).toBe(true);
  expect(Math.abs(body.time_ms - Date.now())).toBeLessThan(60_000);
  expect(typeof body.db.ok).toBe('boolean');
  expect(Number.isInteger(body.db.latency_ms)).toBe(true);
  expect(body.db.latency_ms).toBeGreaterThanOrEqual(0);
}

describe('GET /health', () => {
  it('answers 200 in exactly the SPEC shape when the database is up, without credentials', async () => {
    const res = await h.request('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expectHealthShape(res.body);
    expect(res.body).toMatchObject({ ok: true, env: 'devnet', db: { ok: true, error: null } });
  });

  it('answers 503 with ok:false and a short reason when the database server is unreachable', async () => {
    const config = testConfig();
    const database = openPostgres('postgres://svc:hunter2@127.0.0.1:1/trisettle', 2);
    const services = createServices({ config, database, logger: createLogger('silent', 'devnet'), authSecret: 'x'.repeat(40) });
    try {
      const res = await buildApp(services).request(`${BASE}/health`);
      expect(res.status).toBe(503);
      const body = await res.json();
      expectHealthShape(body);
      expect(body.ok).toBe(false);
      expect(body.db.ok).toBe(false);
      expect(body.db.error).toEqual(expect.any(String));
      expect(body.db.error.length).toBeGreaterThan(0);
      expect(body.db.error).not.toContain('hunter2');
      expect(body.db.error).not.toContain('\n');
    } finally {
      await database.close();
    }
  });

  it('answers 503 with db.ok:false once the database is closed', async () => {
    const h2 = await createHarness();
    try {
      expect((await h2.request('GET', '/health')).status).toBe(200);
      await h2.database.close();
      const res = await h2.request('GET', '/health');
      expect(res.status).toBe(503);
      expectHealthShape(res.body);
      expect(res.body).toMatchObject({ ok: false, db: { ok: false } });
      expect(res.body.db.error).toEqual(expect.any(String));
      expect(res.body.db.error.length).toBeGreaterThan(0);
    } finally {
      await h2.close();
    }
  });
});

describe.runIf(TEST_DB === 'postgres')('GET /health on PostgreSQL', () => {
  it('answers 503 while the server refuses our database, and recovers when it is back', async () => {
    const h2 = await createHarness();
    const name = new URL((h2.database as { url?: string }).url!).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    try {
      expect((await h2.request('GET', '/health')).status).toBe(200);
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      const down = await h2.request('GET', '/health');
      expect(down.status).toBe(503);
      expectHealthShape(down.body);
      expect(down.body).toMatchObject({ ok: false, db: { ok: false } });
      expect(down.body.db.error).toEqual(expect.any(String));

      await admin.query(`alter database ${name} allow_connections true`);
      // Pooled connections that were terminated may each fail one more check before the pool drops them
      // (the backend's goodbye can arrive after the connection is handed out): recovery is by itself, soon.
      const until = Date.now() + 5_000;
      let up = await h2.request('GET', '/health');
      while (up.status !== 200 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        up = await h2.request('GET', '/health');
      }
      expect(up.status).toBe(200);
      expect(up.body.db).toMatchObject({ ok: true, error: null });
    } finally {
      await admin.query(`alter database ${name} allow_connections true`).catch(() => {});
      await admin.end();
      await h2.close();
    }
  });
});

describe('GET /metrics (admin)', () => {
  it('needs the admin bearer: 401 without it or with a wrong one, 200 text with it', async () => {
    const none = await h.request('GET', '/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthenticated');
    const wrong = await h.request('GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } });
    expect(wrong.status).toBe(401);
    const p = await h.platform();
    const platformKey = await h.request('GET', '/metrics', { key: p.secretKey });
    expect(platformKey.status).toBe(401);

    const ok = await h.request('GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(ok.text).toContain('trisettle_http_request_duration_seconds');
  });

  it('does not exist when no ADMIN_TOKEN is configured', async () => {
    const h2 = await createHarness({ config: { adminToken: null } });
    try {
      const res = await h2.request('GET', '/metrics');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      const guessed = await h2.request('GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(guessed.status).not.toBe(200);
    } finally {
      await h2.close();
    }
  });
});
