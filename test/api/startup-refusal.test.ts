/**
 * main.ts after migrate: a SERVICE_FEE_BPS that leaves a platform's fee no room stops start-up (exit 78) with a
 * message naming the platform, instead of serving 500s on that platform's orders. The real process, on a
 * database (PGlite in DATA_DIR, or a fresh PostgreSQL database) that already holds such a platform.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { openPglite } from '../../src/db/client.js';
import { createHarness, freshDatabase, TEST_DB } from '../helpers/harness.js';
import { cleanEnv, freePort, ROOT } from '../helpers/service-process.js';

vi.setConfig({ testTimeout: 120_000 });
const dataDir = mkdtempSync(path.join(tmpdir(), 'trisettle-refusal-'));
let dropDatabase: (() => Promise<void>) | null = null;
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await dropDatabase?.();
});

function start(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { out += c.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe('start-up against the platforms in the database', () => {
  it('refuses a SERVICE_FEE_BPS that leaves a platform no room, naming it, and serves nothing', async () => {
    let dbEnv: Record<string, string>;
    let database;
    if (TEST_DB === 'postgres') {
      const fresh = await freshDatabase();
      database = { ...fresh, close: async () => {} };
      dropDatabase = () => fresh.close();
      dbEnv = { DATABASE_URL: fresh.url! };
    } else {
      database = openPglite(path.join(dataDir, 'pg'));
      dbEnv = {};
    }
    const h = await createHarness({ database });
    const greedy = await h.platform({ name: 'Greedy Co', platform_fee_bps: 9_800 });
    await h.close();

    const port = await freePort();
    const r = await start({ ...dbEnv, PORT: String(port), DEVNET_RPC_PORT: String(await freePort()), DATA_DIR: dataDir, SERVICE_FEE_BPS: '300', LOG_LEVEL: 'warn' });
    expect(r.code, r.out).toBe(78);
    expect(r.out).toContain('SERVICE_FEE_BPS=300');
    expect(r.out).toContain(greedy.platformId);
    expect(r.out).toContain('Greedy Co');
    expect(r.out).not.toContain('Trisettle is running');
  });
});
